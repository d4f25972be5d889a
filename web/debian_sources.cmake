# Unpacks the Debian sources the page's WebAssembly build compiles (yaml-cpp, libcsv) into
# `folder`, once; `ok` is set to whether both are there. The native build calls it before it
# starts the page's sub-build, so that a machine that cannot fetch them (no network) builds
# everything else and reports the page test skipped, rather than failing.
function(rooflineplan_debian_sources folder ok)
  foreach(package libyaml-cpp-dev libcsv-dev)
    if(NOT EXISTS ${folder}/${package}/debian)
      execute_process(COMMAND sh ${PROJECT_SOURCE_DIR}/web/debian_source.sh ${package} ${folder}/${package}
                      RESULT_VARIABLE failed)
      if(failed)
        set(${ok} FALSE PARENT_SCOPE)
        return()
      endif()
    endif()
  endforeach()
  set(${ok} TRUE PARENT_SCOPE)
endfunction()
