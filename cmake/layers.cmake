# Each top-level folder is a layer: one library whose headers are included with the folder's
# name ("model/engine.hpp"). A layer is compiled seeing only its own folder and the folders of
# the layers it links: each folder is exposed through a directory of its own in the build tree
# that holds a single link to it, so an include against the layering is a missing file, and the
# build fails where the include is written.
function(rooflineplan_layer target folder)
  set(root ${PROJECT_BINARY_DIR}/layers/${folder})
  file(MAKE_DIRECTORY ${root})
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${folder} ${root}/${folder} SYMBOLIC)
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${root}>)
endfunction()
