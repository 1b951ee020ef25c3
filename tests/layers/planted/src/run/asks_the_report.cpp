// Planted for the layers test: the driver asks the report, a layer below it (allowed).
#include "report/break_checks.hpp"
