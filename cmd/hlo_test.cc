// hlo-test: runs golden test files (golden/): every .hlo file under the paths
// given, by its // RUN: lines (or its directory's hlo-test.cfg defaults).
//   hlo-test [PATH...] [-j N] [--update] [--filter RE2] [-v]
// Prints a line per failure with its diff or checker message, then
// `N passed, N failed`. Exit status 0 when none failed, 1 otherwise, 2 on bad
// usage.
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "golden/runner.h"
#include "ir/interrupt.h"

int main(int argc, char** argv) {
  hlo::interrupt::InstallHandlers();  // SIGINT, SIGTERM, SIGHUP
  CLI::App app{"hlo-test: run golden tests (RUN lines, .out/.err files, hlo-check)"};
  std::vector<std::string> paths;
  hlo::golden::RunnerOptions options;
  options.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  app.add_option("paths", paths, "test files or directories (default: .)");
  app.add_option("-j,--jobs", options.jobs, "tests run at once (default: all cores)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--update", options.update,
               "rewrite what failed from the current output (.out/.err, expected files, "
               "generated CHECK lines); review the diff");
  app.add_option("--filter", options.filter, "run only tests whose path matches this RE2");
  app.add_option("--timeout", options.timeout_seconds, "seconds a command may run (600)");
  app.add_flag("-v,--verbose", options.verbose, "print passing tests too");
  CLI11_PARSE(app, argc, argv);
  if (paths.empty()) paths.push_back(".");
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  options.tool_directory = ec ? "" : self.parent_path().string();
  char temp_template[] = "/tmp/hlo-test.XXXXXX";
  std::string temp;
  int temp_handle = -1;
  {
    // Removed on SIGINT, SIGTERM and SIGHUP too (ir/interrupt.h). One thread
    // so far: nothing here can keep the handler waiting.
    hlo::interrupt::Critical critical;
    if (const char* made = mkdtemp(temp_template)) {
      temp = made;
      temp_handle = hlo::interrupt::Remember(hlo::interrupt::Kind::kTree, temp, "");
    }
  }
  if (temp.empty()) {
    std::cerr << "hlo-test: cannot create a temporary directory\n";
    return 2;
  }
  options.temp_directory = temp;
  int status = hlo::golden::RunTests(paths, options, std::cout);
  std::filesystem::remove_all(temp, ec);
  hlo::interrupt::Forget(temp_handle);
  return status;
}
