# Makes a real record with npgpu, then asks the plotting script for every kind of picture, each at a
# requested size: curves of that record (PNG, with the table), curves of the checked-in records
# overlaid (SVG and PDF), the all-pairs matrix as a heat map (PNG), and a run under load (PNG).
if(NOT PYTHON)
  message(FATAL_ERROR "Debian's /usr/bin/python3 was not found; install python3-h5py python3-matplotlib")
endif()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${NPGPU} --module memcpy --upper 64K --trial-time 0.002 --max-trials 4 -o ${WORK}/run.h5
                RESULT_VARIABLE npgpu_result OUTPUT_QUIET)
if(NOT npgpu_result EQUAL 0)
  message(FATAL_ERROR "npgpu failed: ${npgpu_result}")
endif()

function(plot output)
  execute_process(COMMAND ${PYTHON} ${SCRIPT} ${ARGN} -o ${WORK}/${output} --npgpu ${NPGPU}
                  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE errors)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "npgpu-plot ${ARGN} failed (${result}): ${errors}")
  endif()
  if(NOT EXISTS ${WORK}/${output})
    message(FATAL_ERROR "npgpu-plot wrote no ${output}")
  endif()
  file(SIZE ${WORK}/${output} bytes)
  if(bytes LESS 10000)
    message(FATAL_ERROR "${output} is suspiciously small (${bytes} bytes)")
  endif()
  set(plot_output "${out}" PARENT_SCOPE)
  set(plot_errors "${errors}" PARENT_SCOPE)
endfunction()

# The pixel size a PNG says in its header (IHDR: width and height, big-endian, from byte 16).
function(expect_png_size file width height)
  file(READ ${file} header OFFSET 16 LIMIT 8 HEX)
  string(SUBSTRING "${header}" 0 8 w)
  string(SUBSTRING "${header}" 8 8 h)
  math(EXPR w "0x${w}")
  math(EXPR h "0x${h}")
  if(NOT w EQUAL width OR NOT h EQUAL height)
    message(FATAL_ERROR "${file} is ${w}x${h} pixels, asked for ${width}x${height}")
  endif()
endfunction()

function(expect_text file text)
  file(READ ${file} content LIMIT 4000)
  string(FIND "${content}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${file} lacks '${text}'")
  endif()
endfunction()

plot(run.png ${WORK}/run.h5 --table --size 1200x600)
expect_png_size(${WORK}/run.png 1200 600)
string(FIND "${plot_output}" "65536" has_last_size)
if(has_last_size EQUAL -1)
  message(FATAL_ERROR "the table lacks the largest size: ${plot_output}")
endif()

set(data ${SOURCE}/tests/data/report)
# 100 pixels to the inch, 72 points: 1000 x 500 pixels is 720 x 360 points.
plot(overlaid.svg ${data}/node.h5 ${data}/cluster.h5:1 ${data}/cluster-b.h5:1 --size 1000x500)
expect_text(${WORK}/overlaid.svg "width=\"720pt\" height=\"360pt\"")
plot(overlaid.pdf ${data}/node.h5:3 ${data}/node.h5:4 --size 1000x500)
expect_text(${WORK}/overlaid.pdf "/MediaBox [ 0 0 720 360 ]")
# A curve the latency/bandwidth model does not describe gets no dashed fit, and says so.
plot(busy.png ${data}/cluster-b.h5:3)
string(FIND "${plot_errors}" "rank0: poor Hockney fit, not drawn" says_poor)
if(says_poor EQUAL -1)
  message(FATAL_ERROR "npgpu-plot drew a poor Hockney fit as if it were good: ${plot_errors}")
endif()
plot(matrix.png ${data}/cluster.h5:5 --kind matrix --size 900x450)
expect_png_size(${WORK}/matrix.png 900 450)

# A run under load (two victims, two load ranks): loaded over isolated, and the impact factor.
execute_process(COMMAND ${MPIRUN} --oversubscribe -np 4 ${NPGPU} --module mpi --pairs all --sizes 8,64K --trial-time 0.002
                        --max-trials 4 --load stream --load-ranks 0,2 --load-size 1M -o ${WORK}/load.h5
                RESULT_VARIABLE npgpu_result OUTPUT_QUIET)
if(NOT npgpu_result EQUAL 0)
  message(FATAL_ERROR "npgpu under load failed: ${npgpu_result}")
endif()
plot(load.png ${WORK}/load.h5 --kind load --size 1000x400)
expect_png_size(${WORK}/load.png 1000 400)
string(FIND "${plot_errors}" "2 victim paths, impact x" says_impact)
if(says_impact EQUAL -1)
  message(FATAL_ERROR "npgpu-plot --kind load did not draw the 2 victim paths: ${plot_errors}")
endif()
# A record with no run under load has nothing to draw: one line, no picture.
execute_process(COMMAND ${PYTHON} ${SCRIPT} ${WORK}/run.h5 --kind load -o ${WORK}/no-load.png --npgpu ${NPGPU}
                RESULT_VARIABLE result ERROR_VARIABLE errors)
if(result EQUAL 0 OR EXISTS ${WORK}/no-load.png)
  message(FATAL_ERROR "npgpu-plot --kind load drew a record with no run under load: ${errors}")
endif()

# Bad input: one line, no picture.
execute_process(COMMAND ${PYTHON} ${SCRIPT} ${data}/plain.h5 -o ${WORK}/plain.png RESULT_VARIABLE result
                ERROR_VARIABLE errors)
if(result EQUAL 0 OR EXISTS ${WORK}/plain.png)
  message(FATAL_ERROR "npgpu-plot drew a file npgpu did not write: ${errors}")
endif()
