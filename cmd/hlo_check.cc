// hlo-check: FileCheck's directives and verdicts, on RE2 (check/).
//   hlo-check CHECK_FILE [--input-file FILE] [--check-prefix P]...
// Reads the input (standard input by default) and matches the CHECK lines of
// CHECK_FILE against it. Exit status 0 pass, 1 a check failed, 2 bad usage
// or a malformed check file. FileCheck's single-dash spelling of long
// options (-check-prefix=X) is accepted too, and its -DNAME=VALUE.
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "check/check_status.h"
#include "check/check_tool.h"

int main(int argc, char** argv) {
  try {
    std::vector<std::string> args(argv, argv + argc);
    return hlo::check::CheckExitCode(hlo::check::RunHloCheck(args, std::cout, std::cerr));
  } catch (const std::bad_alloc&) {
    std::cerr << "hlo-check: out of memory\n";
  } catch (const std::exception& e) {
    std::cerr << "hlo-check: " << e.what() << "\n";
  }
  return 2;
}
