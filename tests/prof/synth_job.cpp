// svp_prof_synth_job <dir> <tasks> <streams>: writes a synthetic JOB directory (see
// add_many_tasks in job_fixture.h) and prints "tasks=<n> ops=<m>", the task bars and
// operator slices report.html must draw. Used by the headless-Chromium test.
#include <cstdlib>
#include <iostream>

#include "job_fixture.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: svp_prof_synth_job <dir> <tasks> <streams>\n";
    return 2;
  }
  const int tasks = std::atoi(argv[2]);
  const int streams = std::atoi(argv[3]);
  if (tasks <= 0 || streams <= 0) {
    std::cerr << "svp_prof_synth_job: tasks and streams must be positive\n";
    return 2;
  }
  svp::prof::test::JobWriter w;
  const std::int64_t ops = svp::prof::test::add_many_tasks(w, tasks, streams);
  w.write(argv[1]);
  std::cout << "tasks=" << tasks << " ops=" << ops << "\n";
  return 0;
}
