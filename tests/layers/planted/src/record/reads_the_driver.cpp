// Planted for the layers test: the record reads the driver, a layer above it.
#include "run/driver.hpp"
