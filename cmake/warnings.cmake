# First-party targets link trainbench_warnings privately; third-party headers are
# included as SYSTEM so their warnings never fail our build.
add_library(trainbench_warnings INTERFACE)
target_compile_options(trainbench_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
  -Wunused -Woverloaded-virtual -Wconversion -Wsign-conversion -Wnull-dereference
  -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough
  $<$<CXX_COMPILER_ID:GNU>:-Wmisleading-indentation -Wduplicated-cond -Wduplicated-branches -Wlogical-op>
  $<$<BOOL:${TRAINBENCH_WERROR}>:-Werror>)

add_library(trainbench_instrument INTERFACE)
if(TRAINBENCH_SANITIZE)
  target_compile_options(trainbench_instrument INTERFACE -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_link_options(trainbench_instrument INTERFACE -fsanitize=address,undefined)
endif()
if(TRAINBENCH_COVERAGE)
  # atomic counters: the parsers read large files on several threads, and racing
  # increments leave counts gcov reports as negative (gcovr then refuses the file)
  target_compile_options(trainbench_instrument INTERFACE --coverage -fprofile-update=atomic -O0)
  target_link_options(trainbench_instrument INTERFACE --coverage)
endif()
