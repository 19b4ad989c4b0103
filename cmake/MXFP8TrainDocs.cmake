#===- MXFP8TrainDocs.cmake - the generated reference of docs/reference/ ----===#
#
# mxfp8train_add_doc(<td> <name> <mlir-tblgen flags>...) runs mlir-tblgen with
# a doc generator (-gen-dialect-doc, -gen-op-doc, -gen-attrdef-doc,
# -gen-pass-doc) on <td>.td of the current source directory and writes
# ${MXFP8TRAIN_BINARY_DIR}/docs/reference/<name>.md. The target
# mxfp8train-doc (part of `all`) builds every page; the lit test
# test/docs/reference.test fails when docs/reference/ of the source tree
# differs from the build tree's, and scripts/update-docs.sh refreshes it.
# Unlike add_mlir_doc, no Hugo-specific markup: the pages are read on GitHub.
#
#===------------------------------------------------------------------------===#

if(NOT TARGET mxfp8train-doc)
  add_custom_target(mxfp8train-doc ALL)
  set_target_properties(mxfp8train-doc PROPERTIES FOLDER "Docs")
endif()

function(mxfp8train_add_doc td name)
  set(LLVM_TARGET_DEFINITIONS ${td}.td)
  tablegen(MLIR ${name}.md ${ARGN})
  set(out ${MXFP8TRAIN_BINARY_DIR}/docs/reference/${name}.md)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E copy
            ${CMAKE_CURRENT_BINARY_DIR}/${name}.md ${out}
    DEPENDS ${CMAKE_CURRENT_BINARY_DIR}/${name}.md)
  add_custom_target(mxfp8train-doc-${name} DEPENDS ${out})
  set_target_properties(mxfp8train-doc-${name} PROPERTIES FOLDER "Docs")
  add_dependencies(mxfp8train-doc mxfp8train-doc-${name})
endfunction()

# The pipelines' page (MXFP8TrainPipelines.md): PassPipelineRegistration
# has no ODS, so scripts/pipeline-options-doc.py writes it from the
# `--help` of `tool` (mxfp8-opt), which must be a target.
function(mxfp8train_add_pipeline_doc tool)
  set(out ${MXFP8TRAIN_BINARY_DIR}/docs/reference/MXFP8TrainPipelines.md)
  set(script ${MXFP8TRAIN_SOURCE_DIR}/scripts/pipeline-options-doc.py)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${Python3_EXECUTABLE} ${script} $<TARGET_FILE:${tool}> ${out}
    DEPENDS ${tool} ${script})
  add_custom_target(mxfp8train-doc-MXFP8TrainPipelines DEPENDS ${out})
  set_target_properties(mxfp8train-doc-MXFP8TrainPipelines PROPERTIES
    FOLDER "Docs")
  add_dependencies(mxfp8train-doc mxfp8train-doc-MXFP8TrainPipelines)
endfunction()
