# Compiles the GLSL compute shaders of the Vulkan backend with glslc (one SPIR-V module per dtype
# variant) and embeds them in a generated C++ registry (adept_spirv_registry.cpp).
#
# Each shader declares its own variants, next to its code, in lines of the form
#   // @build NAME OUTS INS [-DEXTRA=...]
# INS (and OUTS) are dtype suffixes separated by commas, or a group: `all` (every dtype), `float`
# (f32,f16,bf16,f64), `int` (i32,i64,u8,bool). For every input dtype i and output dtype o the module
# NAME_o_i is built; OUTS `=` means o = i, and OUTS `-` builds NAME_i with o = i. A name built by an
# earlier line is skipped. Macros (operand 0 is the output, 1 the input): T_n storage type, C_n
# compute type, U_1 the unsigned integer type of C_1's width, IS_BF16_n, IS_FLOAT / IS_DOUBLE / IS_BOOL
# (of the input), OUT_BOOL, ACC (the input's accumulator type), FROM_BITS(lo, hi) (an output-type value
# from two 32-bit words); common.glsl turns them into LOAD_n(x) and STORE_n(v).
set(ADEPT_SHADER_DIR ${CMAKE_CURRENT_SOURCE_DIR}/src/backends/vulkan/shaders)
set(ADEPT_SPV_DIR ${CMAKE_BINARY_DIR}/spirv)
file(MAKE_DIRECTORY ${ADEPT_SPV_DIR})
file(GLOB ADEPT_SHADER_INCLUDES CONFIGURE_DEPENDS ${ADEPT_SHADER_DIR}/*.glsl)
file(GLOB ADEPT_SHADERS CONFIGURE_DEPENDS ${ADEPT_SHADER_DIR}/*.comp)
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

# Per dtype suffix: storage type, compute type, accumulator, flags (float, double, bool, bfloat16)
# and the value of the type from the two 32-bit words of a fill.
macro(adept_dtype s t c acc f d b bf bits)
  set(T_${s} ${t})
  set(U_${s} uint)
  set(C_${s} ${c})
  set(ACC_${s} ${acc})
  set(F_${s} ${f})
  set(D_${s} ${d})
  set(B_${s} ${b})
  set(BF_${s} ${bf})
  set(BITS_${s} "${bits}")
endmacro()
adept_dtype(f32 float float float 1 0 0 0 "uintBitsToFloat(lo)")
adept_dtype(f16 float16_t float float 1 0 0 0 "float16_t(unpackHalf2x16(lo).x)")
adept_dtype(bf16 uint16_t float float 1 0 0 1 "uint16_t(lo)")
adept_dtype(f64 double double double 1 1 0 0 "packDouble2x32(uvec2(lo, hi))")
adept_dtype(i32 int int int 0 0 0 0 "int(lo)")
adept_dtype(i64 int64_t int64_t int64_t 0 0 0 0 "int64_t(packUint2x32(uvec2(lo, hi)))")
set(U_i64 uint64_t)
adept_dtype(u8 uint8_t int int 0 0 0 0 "uint8_t(lo)")
adept_dtype(bool uint8_t int int 0 0 1 0 "uint8_t(lo)")
set(_group_all f32 f16 bf16 f64 i32 i64 u8 bool)
set(_group_float f32 f16 bf16 f64)
set(_group_int i32 i64 u8 bool)

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

# A `@build` list: comma-separated suffixes or group names.
function(adept_dtype_list out spec)
  string(REPLACE "," ";" items "${spec}")
  set(r "")
  foreach(it ${items})
    if(DEFINED _group_${it})
      list(APPEND r ${_group_${it}})
    elseif(DEFINED T_${it})
      list(APPEND r ${it})
    else()
      message(FATAL_ERROR "vulkan shaders: unknown dtype '${it}' in a @build line")
    endif()
  endforeach()
  set(${out} ${r} PARENT_SCOPE)
endfunction()

set(_built "")
foreach(shader ${ADEPT_SHADERS})
  get_filename_component(source ${shader} NAME)
  # Its @build lines are read here: editing them must re-run the configure step.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${shader})
  file(STRINGS ${shader} builds REGEX "^// @build ")
  foreach(line ${builds})
    string(REGEX REPLACE "^// @build +" "" line "${line}")
    separate_arguments(args UNIX_COMMAND "${line}")
    list(POP_FRONT args name outs ins)
    adept_dtype_list(in_list ${ins})
    foreach(i ${in_list})
      if(outs STREQUAL "=" OR outs STREQUAL "-")
        set(out_list ${i})
      else()
        adept_dtype_list(out_list ${outs})
      endif()
      foreach(o ${out_list})
        if(outs STREQUAL "-")
          set(full ${name}_${i})
        else()
          set(full ${name}_${o}_${i})
        endif()
        if(full IN_LIST _built)
          continue()
        endif()
        list(APPEND _built ${full})
        adept_shader(${full} ${source} -DT_0=${T_${o}} -DC_0=${C_${o}} -DT_1=${T_${i}} -DC_1=${C_${i}} -DU_1=${U_${i}}
                     -DIS_FLOAT=${F_${i}} -DIS_DOUBLE=${D_${i}} -DIS_BOOL=${B_${i}} -DOUT_BOOL=${B_${o}}
                     -DIS_BF16_0=${BF_${o}} -DIS_BF16_1=${BF_${i}} -DACC=${ACC_${i}}
                     "-DFROM_BITS(lo,hi)=${BITS_${o}}" ${args})
      endforeach()
    endforeach()
  endforeach()
endforeach()

set(ADEPT_SPIRV_REGISTRY ${CMAKE_BINARY_DIR}/adept_spirv_registry.cpp)
add_custom_command(
  OUTPUT ${ADEPT_SPIRV_REGISTRY}
  COMMAND ${CMAKE_COMMAND} -DOUT=${ADEPT_SPIRV_REGISTRY} "-DFILES=${ADEPT_SPV_FILES}"
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/embed_spirv.cmake
  DEPENDS ${ADEPT_SPV_FILES} ${CMAKE_CURRENT_SOURCE_DIR}/cmake/embed_spirv.cmake
  COMMENT "Embedding SPIR-V" VERBATIM)
