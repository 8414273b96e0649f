# Compiles the GLSL compute shaders of the Vulkan backend with glslc (one SPIR-V module per
# dtype variant) and embeds them in a generated C++ registry (adept_spirv_registry.cpp).
set(ADEPT_SHADER_DIR ${CMAKE_CURRENT_SOURCE_DIR}/src/backends/vulkan/shaders)
set(ADEPT_SPV_DIR ${CMAKE_BINARY_DIR}/spirv)
file(MAKE_DIRECTORY ${ADEPT_SPV_DIR})
file(GLOB ADEPT_SHADER_INCLUDES ${ADEPT_SHADER_DIR}/*.glsl)
set(ADEPT_SPV_FILES "")

# The op codes from the op table, as a GLSL header for the shaders and, for the host, the list of
# ops each shader variant implements (cmake/op_table_glsl.cmake). Editing the table rebuilds both.
set(ADEPT_GENERATED_DIR ${CMAKE_BINARY_DIR}/generated)
set(ADEPT_OP_GLSL ${ADEPT_GENERATED_DIR}/op_table.glsl)
set(ADEPT_VK_OP_SUPPORT ${ADEPT_GENERATED_DIR}/vk_op_support.inc)
set(ADEPT_OP_SHADERS ${ADEPT_SHADER_DIR}/unary.comp ${ADEPT_SHADER_DIR}/binary.comp)
add_custom_command(
  OUTPUT ${ADEPT_OP_GLSL} ${ADEPT_VK_OP_SUPPORT}
  COMMAND ${CMAKE_COMMAND} -DTABLE=${CMAKE_CURRENT_SOURCE_DIR}/src/kernels/op_table.def -DOUT_GLSL=${ADEPT_OP_GLSL}
          -DOUT_INC=${ADEPT_VK_OP_SUPPORT} "-DSHADERS=${ADEPT_OP_SHADERS}"
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/op_table_glsl.cmake
  DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/kernels/op_table.def ${ADEPT_OP_SHADERS}
          ${CMAKE_CURRENT_SOURCE_DIR}/cmake/op_table_glsl.cmake
  COMMENT "Generating the shaders' op constants" VERBATIM)

# Type macros per dtype suffix: storage type, compute type, float flag, bool flag.
set(T_f32 float)
set(C_f32 float)
set(F_f32 1)
set(B_f32 0)
set(T_f16 float16_t)
set(C_f16 float)
set(F_f16 1)
set(B_f16 0)
set(T_i32 int)
set(C_i32 int)
set(F_i32 0)
set(B_i32 0)
set(T_i64 int64_t)
set(C_i64 int64_t)
set(F_i64 0)
set(B_i64 0)
set(T_u8 uint8_t)
set(C_u8 int)
set(F_u8 0)
set(B_u8 1)
set(BITS_f32 "uintBitsToFloat(lo)")
set(BITS_f16 "float16_t(unpackHalf2x16(lo).x)")
set(BITS_i32 "int(lo)")
set(BITS_i64 "int64_t(packUint2x32(uvec2(lo, hi)))")
set(BITS_u8 "uint8_t(lo)")

function(adept_shader name source)
  set(spv ${ADEPT_SPV_DIR}/${name}.spv)
  add_custom_command(
    OUTPUT ${spv}
    COMMAND ${GLSLC} --target-env=vulkan1.2 -O -I${ADEPT_SHADER_DIR} -I${ADEPT_GENERATED_DIR} ${ARGN} -o ${spv}
            ${ADEPT_SHADER_DIR}/${source}
    DEPENDS ${ADEPT_SHADER_DIR}/${source} ${ADEPT_SHADER_INCLUDES} ${ADEPT_OP_GLSL}
    COMMENT "glslc ${name}" VERBATIM)
  set(ADEPT_SPV_FILES ${ADEPT_SPV_FILES} ${spv} PARENT_SCOPE)
endfunction()

# out type o, in type i
macro(adept_types o i)
  set(_defs -DT_0=${T_${o}} -DC_0=${C_${o}} -DT_1=${T_${i}} -DC_1=${C_${i}} -DIS_FLOAT=${F_${i}}
            -DIS_BOOL=${B_${i}} -DOUT_BOOL=${B_${o}})
endmacro()

set(_all f32 f16 i32 i64 u8)
foreach(t ${_all})
  adept_types(${t} ${t})
  adept_shader(binary_${t}_${t} binary.comp ${_defs})
  adept_shader(unary_${t}_${t} unary.comp ${_defs})
  adept_shader(where_${t} where.comp ${_defs})
  adept_shader(fill_${t} fill.comp ${_defs} "-DFROM_BITS(lo,hi)=${BITS_${t}}")
  if(NOT t STREQUAL "u8")
    adept_types(u8 ${t})
    adept_shader(binary_u8_${t} binary.comp ${_defs})
    adept_shader(unary_u8_${t} unary.comp ${_defs})
  endif()
  foreach(s ${_all})
    adept_types(${t} ${s})
    adept_shader(copy_${t}_${s} copy.comp ${_defs})
  endforeach()
  # reductions: same-type result, bool result (all/any), int64 index result (arg*)
  if(F_${t})
    set(_acc float)
  else()
    set(_acc ${C_${t}})
  endif()
  adept_types(${t} ${t})
  adept_shader(reduce_${t}_${t} reduce.comp ${_defs} -DACC=${_acc} -DARG_OUT=0)
  if(NOT t STREQUAL "u8")
    adept_types(u8 ${t})
    adept_shader(reduce_u8_${t} reduce.comp ${_defs} -DACC=${_acc} -DARG_OUT=0)
  endif()
  adept_types(i64 ${t})
  adept_shader(reduce_i64idx_${t} reduce.comp ${_defs} -DACC=${_acc} -DARG_OUT=1)
endforeach()
foreach(t f32 f16)
  adept_types(${t} ${t})
  adept_shader(matmul_${t} matmul.comp ${_defs})
endforeach()
adept_shader(matmul_coopmat_f16 matmul_coopmat.comp)

set(ADEPT_SPIRV_REGISTRY ${CMAKE_BINARY_DIR}/adept_spirv_registry.cpp)
add_custom_command(
  OUTPUT ${ADEPT_SPIRV_REGISTRY}
  COMMAND ${CMAKE_COMMAND} -DOUT=${ADEPT_SPIRV_REGISTRY} "-DFILES=${ADEPT_SPV_FILES}"
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/embed_spirv.cmake
  DEPENDS ${ADEPT_SPV_FILES} ${CMAKE_CURRENT_SOURCE_DIR}/cmake/embed_spirv.cmake
  COMMENT "Embedding SPIR-V" VERBATIM)
