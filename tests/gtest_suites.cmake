# Read by ctest (the directory's TEST_INCLUDE_FILES) each time it lists the tests: one test per
# GoogleTest suite of BINARY, named after the suite, that runs the suite's tests in one process.
# The binary lists its suites itself (--gtest_list_tests), as gtest_discover_tests would list its
# tests. For a binary whose every process first spends most of a second starting libtorch.
# SUITE_COSTS: "suite=seconds" entries, each suite's COST (its seconds on a 2-core machine), so
# that a run with no cost file of its own starts the long suites first. SUITE_ENVIRONMENT: the
# suites' variables ("NAME=VALUE;...").
execute_process(COMMAND "${BINARY}" --gtest_list_tests
                OUTPUT_VARIABLE listing ERROR_VARIABLE listing RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  # A test that fails, saying why, rather than suites that silently vanish.
  add_test("${BINARY_NAME}_lists_its_suites" "${BINARY}" --gtest_list_tests)
  return()
endif()
string(REPLACE "\n" ";" lines "${listing}")
foreach(line IN LISTS lines)
  # A suite's line starts in the first column: "Suite." or "Prefix/Suite.  # TypeParam = ...".
  if(line MATCHES "^([^ #][^ ]*)\\.")
    set(suite "${CMAKE_MATCH_1}")
    add_test("${suite}" "${BINARY}" "--gtest_filter=${suite}.*")
    set_tests_properties("${suite}" PROPERTIES TIMEOUT 300 ENVIRONMENT "${SUITE_ENVIRONMENT}")
    foreach(entry IN LISTS SUITE_COSTS)
      if(entry MATCHES "^(.*)=([0-9]+)$" AND CMAKE_MATCH_1 STREQUAL suite)
        set_tests_properties("${suite}" PROPERTIES COST ${CMAKE_MATCH_2})
      endif()
    endforeach()
  endif()
endforeach()
