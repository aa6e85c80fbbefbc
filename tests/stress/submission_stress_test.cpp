// The software NPU device's lock-free task submission under a long multi-producer run
// (ctest label "stress"; CI runs it under ThreadSanitizer too): many application threads
// submitting to their own and to shared queues, with events and host reports between
// them (tests/submission_workload.h). SVP_ACL_STRESS_SCALE (a divisor) shortens it for a
// quick local run.
#include <gtest/gtest.h>

#include <cstdlib>

#include "submission_workload.h"

namespace {

int scaled(int n) {
  const char* s = std::getenv("SVP_ACL_STRESS_SCALE");
  const long v = s != nullptr ? std::atol(s) : 1;
  return static_cast<int>(n / (v > 0 ? v : 1)) + 1;
}

TEST(SubmissionStress, EightProducersTwoCoresRunEveryTaskOnceInOrder) {
  svp::test::SubmissionWorkload w;
  w.producers = 8;
  w.tasks_per_producer = scaled(30000);
  w.cores = 2;
  w.shared_queues = 3;
  svp::test::run_submission_workload(w);
}

TEST(SubmissionStress, SixProducersOneCoreRunEveryTaskOnceInOrder) {
  svp::test::SubmissionWorkload w;
  w.producers = 6;
  w.tasks_per_producer = scaled(20000);
  w.cores = 1;
  w.shared_queues = 2;
  svp::test::run_submission_workload(w);
}

}  // namespace
