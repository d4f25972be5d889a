# The libraries the engine links, for the WebAssembly build of the page (included by the
# top-level CMakeLists.txt in place of its find_package calls when the compiler is Emscripten).
# Debian ships them for the host only, so they are taken from Debian once more:
# - header-only ones (fmt in its header-only mode, CLI11, nlohmann-json, Eigen) from the same
#   installed -dev packages, through a folder that holds links to them alone: /usr/include
#   itself would put glibc's headers before Emscripten's libc;
# - compiled ones (yaml-cpp, libcsv) from the Debian source of the installed package
#   (web/debian_source.sh), built here with the same compiler as the engine.
enable_language(C)
set(ROOFLINEPLAN_DEBIAN_SOURCES ${PROJECT_BINARY_DIR}/debian-sources CACHE PATH
    "where the Debian sources of yaml-cpp and libcsv are unpacked (fetched when absent)")
set(deps ${ROOFLINEPLAN_DEBIAN_SOURCES})
set(headers ${PROJECT_BINARY_DIR}/debian-headers)
file(MAKE_DIRECTORY ${deps} ${headers})
foreach(dir fmt CLI nlohmann)
  if(NOT EXISTS /usr/include/${dir})
    message(FATAL_ERROR "the web build needs /usr/include/${dir}: install debian-packages.txt")
  endif()
  file(CREATE_LINK /usr/include/${dir} ${headers}/${dir} SYMBOLIC)
endforeach()
include(${PROJECT_SOURCE_DIR}/web/debian_sources.cmake)
rooflineplan_debian_sources(${deps} fetched)
if(NOT fetched)
  message(FATAL_ERROR "could not unpack the Debian sources of yaml-cpp and libcsv (web/debian_source.sh)")
endif()

add_library(fmt::fmt INTERFACE IMPORTED)
set_target_properties(fmt::fmt PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${headers}
                      INTERFACE_COMPILE_DEFINITIONS FMT_HEADER_ONLY=1)
add_library(CLI11::CLI11 INTERFACE IMPORTED)
set_target_properties(CLI11::CLI11 PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${headers})
add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
set_target_properties(nlohmann_json::nlohmann_json PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${headers})
add_library(Eigen3::Eigen INTERFACE IMPORTED)
set_target_properties(Eigen3::Eigen PROPERTIES INTERFACE_INCLUDE_DIRECTORIES /usr/include/eigen3)
# No threads in the page: a page may not share memory across workers when opened from a file.
# The CPU calibration kernels that start threads are linked but never run there.
add_library(Threads::Threads INTERFACE IMPORTED)

set(YAML_CPP_BUILD_TESTS OFF CACHE BOOL "" FORCE)
set(YAML_CPP_BUILD_TOOLS OFF CACHE BOOL "" FORCE)
set(YAML_CPP_BUILD_CONTRIB OFF CACHE BOOL "" FORCE)
set(YAML_CPP_INSTALL OFF CACHE BOOL "" FORCE)
set(YAML_BUILD_SHARED_LIBS OFF CACHE BOOL "" FORCE)
add_subdirectory(${deps}/libyaml-cpp-dev ${PROJECT_BINARY_DIR}/yaml-cpp EXCLUDE_FROM_ALL SYSTEM)
add_library(libcsv_wasm STATIC ${deps}/libcsv-dev/libcsv.c)
target_include_directories(libcsv_wasm SYSTEM PUBLIC ${deps}/libcsv-dev)
add_library(libcsv::csv ALIAS libcsv_wasm)

# The engine reports bad input by exception; Emscripten's default would abort at the first throw.
add_compile_options(-fexceptions)
add_link_options(-fexceptions)
# Emscripten 3.1.6's libc++ reads no floating point with std::from_chars (web/compat/).
add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:SHELL:-include ${PROJECT_SOURCE_DIR}/web/compat/from_chars_double.hpp>")
