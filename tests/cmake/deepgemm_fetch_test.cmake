# cmake -DCASE=... -P: one case of cmake/deepgemm.cmake's lookup (tests/cmake/CMakeLists.txt).
# Makes a git repository with DeepGEMM's kernel header in WORK_DIR and configures deepgemm_project/
# with GEMMSCOPE_DEEPGEMM_REPOSITORY at file:// that repository, so the fetch needs no network.
cmake_minimum_required(VERSION 3.25)

set(kernel "deep_gemm/include/deep_gemm/impls/sm90_fp8_gemm_1d2d.cuh")
set(repo "${WORK_DIR}/DeepGEMM")
set(url "file://${repo}")
file(REMOVE_RECURSE "${WORK_DIR}")
# An installed deep_gemm package must not be found instead: python3 is `false` here.
find_program(FALSE_PROGRAM false REQUIRED)

function(fail what)
  message(FATAL_ERROR "deepgemm_fetch_${CASE}: ${what}\n--- configure output:\n${output}")
endfunction()

# Runs git in the test repository; sets `git_output`.
function(git)
  execute_process(
    COMMAND "${GIT_EXECUTABLE}" -C "${repo}" -c user.name=gemmscope -c user.email=gemmscope@test
            -c commit.gpgsign=false -c init.defaultBranch=main ${ARGN}
    OUTPUT_VARIABLE git_output OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  set(git_output "${git_output}" PARENT_SCOPE)
endfunction()

# Commits `text` as the kernel header; sets `commit` to the new commit.
function(commit_kernel text)
  file(WRITE "${repo}/${kernel}" "${text}")
  git(add deep_gemm)
  git(commit -q -m "${text}")
  git(rev-parse HEAD)
  set(commit "${git_output}" PARENT_SCOPE)
endfunction()

# Configures deepgemm_project/ in WORK_DIR/<build> with CUTLASS found and the extra arguments; sets
# `output` (what configure printed), `found`, `include` and `summary`. Configure must succeed.
function(configure build)
  set(make_program "")
  if(MAKE_PROGRAM)
    set(make_program "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
  endif()
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -S "${CMAKE_CURRENT_LIST_DIR}/deepgemm_project"
            -B "${WORK_DIR}/${build}" -G "${GENERATOR}" ${make_program}
            "-DGEMMSCOPE_SOURCE_DIR=${GEMMSCOPE_SOURCE_DIR}" "-DGEMMSCOPE_PYTHON3=${FALSE_PROGRAM}"
            -DTEST_CUTLASS_FOUND=ON ${ARGN}
    RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
  set(output "${output}" PARENT_SCOPE)
  if(NOT status EQUAL 0)
    fail("configure failed (${status})")
  endif()
  include("${WORK_DIR}/${build}/result.cmake")
  foreach(var found include summary)
    set(${var} "${${var}}" PARENT_SCOPE)
  endforeach()
endfunction()

function(expect_contains text part)
  string(FIND "${text}" "${part}" at)
  if(at EQUAL -1)
    fail("expected \"${part}\" in \"${text}\"")
  endif()
endfunction()

function(expect_not_found build)
  if(found OR include)
    fail("DeepGEMM found (${include}), expected none")
  endif()
  expect_contains("${summary}" "no DeepGEMM (")
  if(EXISTS "${WORK_DIR}/${build}/_deps/deepgemm-src/${kernel}")
    fail("a copy of DeepGEMM is in ${WORK_DIR}/${build}/_deps")
  endif()
endfunction()

file(MAKE_DIRECTORY "${repo}")
git(init -q)
file(WRITE "${repo}/LICENSE" "MIT\n")
# A submodule, as DeepGEMM has (third-party/cutlass), whose URL leads nowhere: the fetch must leave
# submodules alone.
file(WRITE "${repo}/.gitmodules" "[submodule \"third-party/cutlass\"]\n"
     "\tpath = third-party/cutlass\n\turl = file://${WORK_DIR}/no-such-submodule\n")
git(add LICENSE .gitmodules)
git(update-index --add --cacheinfo
    "160000,f3fde58372d33e9a5650ba7b80fc48b3b49d40c8,third-party/cutlass")
commit_kernel("// first")
set(first "${commit}")
set(fetched_include "${WORK_DIR}/build/_deps/deepgemm-src/deep_gemm/include")

if(CASE STREQUAL "fetch")
  configure(build "-DGEMMSCOPE_DEEPGEMM_REPOSITORY=${url}" "-DGEMMSCOPE_DEEPGEMM_COMMIT=${first}")
  if(NOT found OR NOT include STREQUAL fetched_include)
    fail("expected DeepGEMM fetched into ${fetched_include}, found=${found} include=${include}")
  endif()
  file(READ "${include}/deep_gemm/impls/sm90_fp8_gemm_1d2d.cuh" header)
  expect_contains("${header}" "// first")
  expect_contains("${summary}" "fetched ${first} from ${url}")
  expect_contains("${output}" "fetching DeepGEMM ${first}")

  # Re-configure with the repository gone (as offline): the copy at that commit is reused.
  file(RENAME "${repo}" "${repo}.away")
  configure(build)
  if(NOT found OR NOT include STREQUAL fetched_include)
    fail("the fetched copy was not reused: found=${found} include=${include}")
  endif()
  string(FIND "${output}" "fetching DeepGEMM" at)
  if(NOT at EQUAL -1)
    fail("fetched again where the copy at the commit was there")
  endif()

  # Another commit is fetched anew.
  file(RENAME "${repo}.away" "${repo}")
  commit_kernel("// second")
  configure(build "-DGEMMSCOPE_DEEPGEMM_COMMIT=${commit}")
  file(READ "${include}/deep_gemm/impls/sm90_fp8_gemm_1d2d.cuh" header)
  expect_contains("${header}" "// second")
  expect_contains("${summary}" "fetched ${commit} from ${url}")
elseif(CASE STREQUAL "dir")
  # GEMMSCOPE_DEEPGEMM_DIR comes first: nothing is fetched.
  configure(build "-DGEMMSCOPE_DEEPGEMM_DIR=${repo}" "-DGEMMSCOPE_DEEPGEMM_REPOSITORY=${url}"
            "-DGEMMSCOPE_DEEPGEMM_COMMIT=${first}")
  if(NOT found OR NOT include STREQUAL "${repo}/deep_gemm/include")
    fail("expected DeepGEMM from ${repo}, found=${found} include=${include}")
  endif()
  if(EXISTS "${WORK_DIR}/build/_deps/deepgemm-src")
    fail("fetched although GEMMSCOPE_DEEPGEMM_DIR was given")
  endif()
elseif(CASE STREQUAL "bad_commit" OR CASE STREQUAL "missing_repo")
  set(commit "${first}")
  if(CASE STREQUAL "bad_commit")
    set(commit "0123456789abcdef0123456789abcdef01234567")
  else()
    set(url "file://${WORK_DIR}/no-such-repository")
  endif()
  configure(build "-DGEMMSCOPE_DEEPGEMM_REPOSITORY=${url}" "-DGEMMSCOPE_DEEPGEMM_COMMIT=${commit}")
  expect_not_found(build)
  # Why (git's own message), in the summary and in a status line that says the build goes on.
  expect_contains("${summary}" "could not fetch ${commit} from ${url}: fatal: ")
  expect_contains("${output}" "the build goes on without DeepGEMM")
  expect_contains("${summary}" "-DGEMMSCOPE_DEEPGEMM_DIR=")
elseif(CASE STREQUAL "off")
  configure(build "-DGEMMSCOPE_DEEPGEMM_FETCH=OFF" "-DGEMMSCOPE_DEEPGEMM_REPOSITORY=${url}"
            "-DGEMMSCOPE_DEEPGEMM_COMMIT=${first}")
  expect_not_found(build)
  expect_contains("${summary}" "GEMMSCOPE_DEEPGEMM_FETCH is OFF")
elseif(CASE STREQUAL "no_cutlass")
  # DeepGEMM's kernels need CUTLASS: without it nothing is fetched.
  configure(build -DTEST_CUTLASS_FOUND=OFF "-DGEMMSCOPE_DEEPGEMM_REPOSITORY=${url}"
            "-DGEMMSCOPE_DEEPGEMM_COMMIT=${first}")
  expect_not_found(build)
  expect_contains("${summary}" "need CUTLASS")
else()
  message(FATAL_ERROR "unknown CASE ${CASE}")
endif()
