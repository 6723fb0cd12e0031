// hlo-test: runs golden test files (golden/): every .hlo file under the paths
// given, by its // RUN: lines (or its directory's hlo-test.cfg defaults).
//   hlo-test [PATH...] [-j N] [--update] [--filter RE2] [--timeout S]
//            [--max-output MIB] [-v]
// Prints a line per failure with its diff or checker message, then
// `N passed, N failed`. Exit status 0 when none failed, 1 otherwise, 2 on bad
// usage.
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "golden/runner.h"
#include "golden/shell.h"
#include "ir/cpu_count.h"
#include "ir/interrupt.h"

namespace {

constexpr int kMaxJobs = 1024;

// Set when a signal came: main then leaves the end to the signal's thread.
std::atomic<bool> interrupted{false};

// SIGINT/SIGTERM/SIGHUP: a thread of its own waits for them (blocked in
// every other thread), kills the commands' process groups, removes the
// temporary folder and ends hlo-test by the same signal (re-raised on that
// thread: a handler installed for it runs there, then the default).
void HandleSignalsOnAThread(const std::string& temp_directory) {
  sigset_t set;
  sigemptyset(&set);
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, signal_number);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  try {
    std::thread([set, temp_directory] {
      int signal_number = 0;
      if (sigwait(&set, &signal_number) != 0) return;
      interrupted = true;  // before the kill that lets the tests finish
      hlo::golden::KillRunningCommands();
      std::error_code ec;
      std::filesystem::remove_all(temp_directory, ec);
      hlo::golden::KillRunningCommands();  // any started meanwhile
      // Re-raised here with the disposition in force (a cleanup handler,
      // e.g. for a file being written, still runs), then by default.
      pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
      raise(signal_number);
      ::signal(signal_number, SIG_DFL);
      raise(signal_number);
    }).detach();
  } catch (const std::system_error&) {
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);  // no such thread: default handling
  }
}

}  // namespace

int main(int argc, char** argv) {
  // The handler the signal thread re-raises into: it removes the temporaries
  // of files being written (--update) and exits 128 + signal.
  hlo::interrupt::InstallHandlers();
  CLI::App app{"hlo-test: run golden tests (RUN lines, .out/.err files, hlo-check)"};
  std::vector<std::string> paths;
  hlo::golden::RunnerOptions options;
  options.jobs = std::clamp(static_cast<int>(hlo::UsableCpuCount()), 1, kMaxJobs);
  int max_output_mib = 64;
  app.add_option("paths", paths, "test files or directories (default: .)");
  app.add_option("-j,--jobs", options.jobs, "tests run at once (default: all cores; 1 to 1024)")
      ->check(CLI::Range(1, kMaxJobs));
  app.add_flag("--update", options.update,
               "rewrite what failed from the current output (.out/.err, expected files, "
               "generated CHECK lines); review the diff");
  app.add_option("--filter", options.filter, "run only tests whose path matches this RE2");
  app.add_option("--timeout", options.timeout_seconds,
                 "seconds a command may run (1 to 86400, default 600)")
      ->check(CLI::Range(1, 86400));
  app.add_option("--max-output", max_output_mib,
                 "MiB of output (stdout + stderr) a command may write before it is killed "
                 "(1 to 4096, default 64)")
      ->check(CLI::Range(1, 4096));
  app.add_flag("-v,--verbose", options.verbose, "print passing tests too");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help is a ParseError of status 0; every usage error exits 2.
    return app.exit(e) == 0 ? 0 : 2;
  }
  options.max_output_bytes = static_cast<size_t>(max_output_mib) << 20;
  if (paths.empty()) paths.push_back(".");
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  options.tool_directory = ec ? "" : self.parent_path().string();
  const char* tmpdir = getenv("TMPDIR");
  std::string temp_template = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/hlo-test.XXXXXX";
  if (mkdtemp(temp_template.data()) == nullptr) {
    std::cerr << "hlo-test: cannot create a temporary directory " << temp_template << ": "
              << std::strerror(errno) << "\n";
    return 2;
  }
  options.temp_directory = temp_template;
  HandleSignalsOnAThread(options.temp_directory);
  int status = 1;
  try {
    status = hlo::golden::RunTests(paths, options, std::cout);
  } catch (const std::exception& e) {
    std::cerr << "hlo-test: error: " << e.what() << "\n";
  }
  std::filesystem::remove_all(options.temp_directory, ec);
  while (interrupted) pause();  // the signal's thread ends the process
  return status;
}
