// Parsers against output captured from the local Slurm 22.05.8 cluster
// (scripts/slurm-cluster), pasted verbatim.
#include "slurm/parse.hpp"

#include <doctest/doctest.h>

using namespace lg::slurm;
using namespace std::chrono_literals;

TEST_SUITE_BEGIN("slurm");

TEST_CASE("parse_sbatch_parsable: id with and without cluster")
{
  CHECK(parse_sbatch_parsable("15\n") == JobId("15"));
  // sbatch --parsable -M lgcluster
  CHECK(parse_sbatch_parsable("13;lgcluster\n") == JobId("13"));
  CHECK(parse_sbatch_parsable("12345_7\n") == JobId("12345_7"));
  CHECK(parse_sbatch_parsable("warning first\n77\n") == JobId("77"));
}

TEST_CASE("parse_sbatch_parsable: no id")
{
  CHECK_FALSE(parse_sbatch_parsable(""));
  CHECK_FALSE(parse_sbatch_parsable("Submitted batch job\n"));
  CHECK_FALSE(parse_sbatch_parsable(";lgcluster\n"));
  CHECK_FALSE(parse_sbatch_parsable("12a\n"));
  CHECK_FALSE(parse_sbatch_parsable("12_\n"));
}

TEST_CASE("node names: a NodeList's nodes, unreadable hostlists refused, the --exclude option")
{
  // sacct/squeue NodeList: "n2" for a one-node job, "n[1-4]" or "n1,n3" for more
  // (Slurm's hostlist form, src/common/hostlist.c; zero-padded ranges keep their width).
  using Nodes = std::optional<std::vector<std::string>>;
  CHECK(expand_node_list("n2") == Nodes({"n2"}));
  CHECK(expand_node_list("gpu-a100.rack3_07") == Nodes({"gpu-a100.rack3_07"}));
  CHECK(expand_node_list("n[1-3]") == Nodes({"n1", "n2", "n3"}));
  CHECK(expand_node_list("gpu[08-10,12],login1") == Nodes({"gpu08", "gpu09", "gpu10", "gpu12", "login1"}));
  CHECK(expand_node_list("n1,n3") == Nodes({"n1", "n3"}));
  CHECK(expand_node_list("") == Nodes(std::vector<std::string>{}));
  CHECK_FALSE(expand_node_list("None assigned"));
  CHECK_FALSE(expand_node_list("r[1-2]n[1-4]"));  // two brackets: not read, so not narrowed
  CHECK_FALSE(expand_node_list("n[4-1]"));
  CHECK_FALSE(expand_node_list("n[1-"));
  CHECK_FALSE(expand_node_list("n[1-100000]"));
  // Bytes a log could carry as a "host" and a shell or hostlist would read.
  CHECK_FALSE(is_node_name("n1;rm -rf ~"));
  CHECK_FALSE(is_node_name("-n1"));
  CHECK_FALSE(is_node_name("n1 n2"));
  CHECK_FALSE(is_node_name(std::string(65, 'n')));
  CHECK(exclude_argument({"n1", "n3"}) == "--exclude=n1,n3");
}

TEST_CASE("node_fail_candidates: the nodes every NODE_FAIL step ran on, else the allocation")
{
  // sacct --format=JobID,JobName,State,ExitCode,Elapsed,NodeList,Reason,Comment
  // of a 4-node job that lost its batch host (Slurm 22.05 column layout).
  const auto lost_batch_host = parse_sacct("77|train|NODE_FAIL|0:0|00:10:00|n[1-4]|None|\n"
                                           "77.batch|batch|NODE_FAIL|0:0|00:10:00|n1||\n"
                                           "77.extern|extern|COMPLETED|0:0|00:10:00|n[1-4]||\n"
                                           "77.0|python3|NODE_FAIL|0:0|00:09:58|n[1-4]||\n");
  REQUIRE(lost_batch_host.size() == 1);
  const auto one = node_fail_candidates(lost_batch_host.front());
  CHECK(one.nodes == std::vector<std::string>{"n1"});
  CHECK(one.source.find("77.batch, 77.0") != std::string::npos);
  const auto lost_some_node = parse_sacct("78|train|NODE_FAIL|0:0|00:10:00|n[1-4]|None|\n"
                                          "78.batch|batch|CANCELLED|0:15|00:10:00|n1||\n"
                                          "78.0|python3|NODE_FAIL|0:0|00:09:58|n[1-4]||\n");
  CHECK(node_fail_candidates(lost_some_node.front()).nodes == std::vector<std::string>{"n1", "n2", "n3", "n4"});
  // No step record: the allocation's nodes.
  const auto no_steps = parse_sacct("79|train|NODE_FAIL|0:0|00:10:00|gpu[01-02]|None|\n");
  const auto both = node_fail_candidates(no_steps.front());
  CHECK(both.nodes == std::vector<std::string>{"gpu01", "gpu02"});
  CHECK(both.source.find("the job's NodeList") != std::string::npos);
}

TEST_CASE("parse_exit_status")
{
  CHECK(parse_exit_status("0:0") == ExitStatus{0, 0});
  CHECK(parse_exit_status("0:9") == ExitStatus{0, 9});
  CHECK(parse_exit_status("3:0") == ExitStatus{3, 0});
  CHECK(parse_exit_status("0:125") == ExitStatus{0, 125});
  CHECK_FALSE(parse_exit_status(""));
  CHECK_FALSE(parse_exit_status("x:1"));
  CHECK_FALSE(parse_exit_status("1:"));
  CHECK_FALSE(parse_exit_status("-1:0"));
  CHECK_FALSE(parse_exit_status("99999999999999999999:0"));
}

TEST_CASE("parse_duration: sacct and squeue spellings")
{
  CHECK(parse_duration("00:01:04") == 64s);
  CHECK(parse_duration("1-02:03:04") == 86400s + 7384s);
  CHECK(parse_duration("0:03") == 3s);   // squeue %M
  CHECK(parse_duration("1:04") == 64s);  // squeue %M
  CHECK(parse_duration("00:00:01.234") == 1s);
  CHECK_FALSE(parse_duration("UNLIMITED"));
  CHECK_FALSE(parse_duration("INVALID"));
  CHECK_FALSE(parse_duration(""));
  CHECK_FALSE(parse_duration("1:2:3:4"));
}

TEST_CASE("parse_sacct: real 22.05 output with steps")
{
  // sacct -j 1,2,3,5,6,7 --parsable2 --noheader
  //   --format=JobID,JobName,State,ExitCode,Elapsed,NodeList,Reason,Comment
  const std::string out = "1|lgtest|COMPLETED|0:0|00:00:00|n[1-4]|None|lg:run1:a1\n"
                          "1.batch|batch|COMPLETED|0:0|00:00:00|n1||\n"
                          "1.0|bash|COMPLETED|0:0|00:00:00|n[1-4]||\n"
                          "2|oomtest|FAILED|1:0|00:00:00|n1|None|lg:r2:a1\n"
                          "2.batch|batch|FAILED|1:0|00:00:00|n1||\n"
                          "2.0|python3|OUT_OF_MEMORY|0:125|00:00:00|n1||\n"
                          "3|longrun|CANCELLED by 0|0:0|00:00:03|n[1-4]|None|\n"
                          "3.batch|batch|CANCELLED|0:15|00:00:04|n1||\n"
                          "5|tlimit|TIMEOUT|0:0|00:01:04|n2|None|\n"
                          "5.batch|batch|CANCELLED|0:15|00:01:05|n2||\n"
                          "6|fails|FAILED|3:0|00:00:00|n2|None|\n"
                          "6.batch|batch|FAILED|3:0|00:00:00|n2||\n"
                          "7|sig|FAILED|0:9|00:00:00|n2|None|\n"
                          "7.batch|batch|CANCELLED|0:9|00:00:00|n2||\n";
  const auto jobs = parse_sacct(out);
  REQUIRE(jobs.size() == 6);

  CHECK(jobs[0].id == "1");
  CHECK(jobs[0].name == "lgtest");
  CHECK(jobs[0].state == JobState::completed);
  CHECK(jobs[0].nodes == "n[1-4]");
  CHECK(jobs[0].comment == "lg:run1:a1");
  REQUIRE(jobs[0].steps.size() == 2);
  CHECK(jobs[0].steps[0].step == "batch");
  CHECK(jobs[0].steps[1].step == "0");
  CHECK(jobs[0].steps[1].name == "bash");
  CHECK_FALSE(jobs[0].out_of_memory());

  SUBCASE("an srun step killed by the cgroup OOM handler")
  {
    CHECK(jobs[1].state == JobState::failed);
    CHECK(jobs[1].steps[1].state == JobState::out_of_memory);
    CHECK(jobs[1].out_of_memory());
  }
  SUBCASE("CANCELLED by <uid>")
  {
    CHECK(jobs[2].state == JobState::cancelled);
    CHECK(jobs[2].raw_state == "CANCELLED by 0");
    CHECK(jobs[2].steps[0].exit == ExitStatus{0, 15});
    CHECK(jobs[2].comment.empty());
  }
  SUBCASE("TIMEOUT with elapsed time")
  {
    CHECK(jobs[3].state == JobState::timeout);
    CHECK(jobs[3].elapsed == 64s);
    CHECK(is_terminal(jobs[3].state));
  }
  SUBCASE("exit code vs signal")
  {
    CHECK(jobs[4].exit == ExitStatus{3, 0});
    CHECK(jobs[5].exit == ExitStatus{0, 9});
  }
}

TEST_CASE("parse_sacct: rejected and pending jobs")
{
  // A submission refused for its GRES still leaves a record; a pending job
  // cancelled before it ran has no nodes.
  const auto jobs =
    parse_sacct("8|wrap|FAILED|1:0|00:00:00|None assigned|None|\n"
                "9|wrap|CANCELLED by 0|0:0|00:00:00|None assigned|"
                "PartitionNodeLimit|\n"
                "5|tlimit|RUNNING|0:0|00:00:59|n2|None|\n");
  REQUIRE(jobs.size() == 3);
  CHECK(jobs[0].nodes.empty());
  CHECK(jobs[1].reason == "PartitionNodeLimit");
  CHECK(jobs[2].state == JobState::running);
  CHECK_FALSE(is_terminal(jobs[2].state));
}

TEST_CASE("parse_sacct: states Slurm prints on other clusters")
{
  const auto jobs = parse_sacct("10|a|OUT_OF_MEMORY|0:125|00:10:00|n1|None|\n"
                                "11|b|NODE_FAIL|1:0|01:00:00|n[1-2]|None|\n"
                                "12|c|PREEMPTED|0:15|00:00:10|n3|None|\n"
                                "13|d|CANCELLED+|0:0|00:00:10|n3|None|\n"
                                "14|e|REQUEUE_HOLD|0:0|00:00:00||None|\n"
                                "15|f|SOMETHING_NEW|0:0|00:00:00||None|\n");
  REQUIRE(jobs.size() == 6);
  CHECK(jobs[0].state == JobState::out_of_memory);
  CHECK(jobs[0].out_of_memory());
  CHECK(jobs[1].state == JobState::node_fail);
  CHECK(jobs[2].state == JobState::preempted);
  CHECK(jobs[3].state == JobState::cancelled);
  CHECK(jobs[4].state == JobState::requeued);
  CHECK(jobs[5].state == JobState::unknown);
  CHECK(jobs[5].raw_state == "SOMETHING_NEW");
}

TEST_CASE("parse_sacct: garbage never crashes")
{
  CHECK(parse_sacct("").empty());
  CHECK(parse_sacct("this is not sacct output\n|||\n12x|a|b\n\x01\x02\n")
          .empty());
  CHECK(parse_sacct("12.batch|batch|COMPLETED|0:0|00:00:00|n1||\n").empty());
  const auto jobs = parse_sacct("12|n|???|?|?|?|?|?\n");
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].state == JobState::unknown);
  CHECK_FALSE(jobs[0].exit);
  CHECK_FALSE(jobs[0].elapsed);
}

TEST_CASE("parse_sacct: a '|' in the comment stays in the comment")
{
  const auto jobs = parse_sacct("20|x|PENDING|0:0|00:00:00||None|a|b\n");
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].comment == "a|b");
}

TEST_CASE("parse_squeue: real 22.05 output")
{
  // squeue --noheader --states=all --format='%i|%j|%T|%M|%N|%r|%k'
  const auto jobs = parse_squeue("4|waiting|PENDING|0:00||Resources|lg:r3:a2\n"
                                 "5|tlimit|PENDING|0:00||Priority|(null)\n"
                                 "3|longrun|RUNNING|0:03|n[1-4]|None|(null)\n"
                                 "5|tlimit|TIMEOUT|1:04|n2|TimeLimit|(null)\n"
                                 "7|sig|FAILED|0:00|n2|JobLaunchFailure|(null)\n");
  REQUIRE(jobs.size() == 5);
  CHECK(jobs[0].state == JobState::pending);
  CHECK(jobs[0].reason == "Resources");
  CHECK(jobs[0].comment == "lg:r3:a2");
  CHECK(jobs[1].comment.empty());
  CHECK(jobs[2].nodes == "n[1-4]");
  CHECK(jobs[2].elapsed == 3s);
  CHECK(jobs[3].state == JobState::timeout);
  CHECK(jobs[3].elapsed == 64s);
  CHECK_FALSE(jobs[0].exit);
  CHECK(jobs[0].source == StatusSource::squeue);
  CHECK(parse_squeue("squeue: garbage garbage\n").empty());
}

TEST_CASE("is_transient_error: Slurm unreachable vs request refused")
{
  CHECK(is_transient_error("sbatch: error: Batch job submission failed: "
                           "Socket timed out on send/recv operation\n"));
  CHECK(is_transient_error("sbatch: error: Batch job submission failed: "
                           "Unable to contact slurm controller (connect "
                           "failure)\n"));
  CHECK(is_transient_error("slurm_load_jobs error: Unable to contact slurm "
                           "controller (connect failure)\n"));
  CHECK(is_transient_error(
    "sacct: error: slurm_persist_conn_open_without_init: failed to open "
    "persistent connection to host:127.0.0.1:16819: Connection refused\n"));
  CHECK_FALSE(is_transient_error(
    "sbatch: error: Batch job submission failed: Invalid account or "
    "account/partition combination specified\n"));
  CHECK_FALSE(is_transient_error(
    "sbatch: error: Batch job submission failed: Requested time limit is "
    "invalid (missing or exceeds some limit)\n"));
}

TEST_CASE("is_accounting_unavailable")
{
  CHECK(is_accounting_unavailable("Slurm accounting storage is disabled\n"));
  CHECK(is_accounting_unavailable(
    "sacct: error: Problem talking to the database: Connection refused\n"));
  CHECK_FALSE(is_accounting_unavailable("sacct: error: Invalid field\n"));
}

TEST_CASE("slurm_error_reason: strips the tool's prefixes")
{
  CHECK(slurm_error_reason("sbatch: error: invalid partition specified: "
                           "nosuch\nsbatch: error: Batch job submission "
                           "failed: Invalid partition name specified\n")
        == "Invalid partition name specified");
  CHECK(slurm_error_reason("sbatch: error: Memory specification can not be "
                           "satisfied\nsbatch: error: Batch job submission "
                           "failed: Requested node configuration is not "
                           "available\n")
        == "Requested node configuration is not available");
  CHECK(slurm_error_reason("Slurm accounting storage is disabled\n")
        == "Slurm accounting storage is disabled");
  CHECK(slurm_error_reason("").empty());
}

TEST_SUITE_END();

TEST_CASE("match_requested: a pending heterogeneous job is the sum of its components")
{
  // squeue --noheader --states=all --jobs=1 --format=%i|%j|%T|%M|%N|%r|%k on
  // the local 22.05 cluster, a held two-component job (sacct prints nothing
  // for it yet).
  const auto reported = parse_squeue("1+1|het.sh|PENDING|0:00||JobHeldUser|(null)\n"
                                     "1+0|het.sh|PENDING|0:00||JobHeldUser|(null)\n");
  const std::vector<JobId> requested{"1"};
  const auto matched = match_requested(requested, reported);
  REQUIRE(matched.size() == 1);
  CHECK(matched[0].id == "1");
  CHECK(matched[0].state == JobState::pending);
}

TEST_CASE("match_requested: a heterogeneous job ends when every component has, with the failed one's state")
{
  // sacct --jobs=1 after the job above ran (component 1 edited to FAILED).
  const auto reported = parse_sacct("1+0|het.sh|COMPLETED|0:0|00:00:15|n1|JobHeldUser|\n"
                                    "1+0.batch|batch|COMPLETED|0:0|00:00:15|n1||\n"
                                    "1+1|het.sh|FAILED|1:0|00:00:15|n2|JobHeldUser|\n");
  const std::vector<JobId> requested{"1", "1+0"};
  const auto matched = match_requested(requested, reported);
  REQUIRE(matched.size() == 2);
  CHECK(matched[0].id == "1");
  CHECK(matched[0].state == JobState::failed);
  CHECK(matched[0].nodes == "n1,n2");
  CHECK(matched[0].steps.size() == 1);
  CHECK(matched[1].id == "1+0");
  CHECK(matched[1].state == JobState::completed);
  // One component still running: the sum has not ended.
  const auto running = parse_sacct("1+0|het.sh|COMPLETED|0:0|00:00:15|n1|None|\n"
                                   "1+1|het.sh|RUNNING|0:0|00:00:15|n2|None|\n");
  CHECK(match_requested(std::vector<JobId>{"1"}, running).at(0).state == JobState::running);
}

TEST_CASE("match_requested: leading zeros name the same job; other jobs do not match")
{
  const auto reported = parse_sacct("181|x|RUNNING|0:0|00:00:01|n1|None|\n"
                                    "1810|y|PENDING|0:0|00:00:00||Priority|\n");
  const std::vector<JobId> requested{"0181", "18", "99"};
  const auto matched = match_requested(requested, reported);
  REQUIRE(matched.size() == 1);
  CHECK(matched[0].id == "0181");
  CHECK(matched[0].state == JobState::running);
  CHECK(canonical_job_id("000") == "0");
  CHECK(canonical_job_id("007+1") == "7+1");
}
