# Reads an AUTO|ON|OFF option (any case) into `out`, upper-cased; any other value stops the
# configure with one line naming the option and what it allows.
function(npgpu_tristate option out)
  string(TOUPPER "${${option}}" mode)
  if(NOT mode MATCHES "^(AUTO|ON|OFF)$")
    message(FATAL_ERROR "${option} must be AUTO, ON or OFF (got '${${option}}')")
  endif()
  set(${out} "${mode}" PARENT_SCOPE)
endfunction()
