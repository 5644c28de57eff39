// The script reader: continuations, quoting, heredocs, arrays, variables,
// directives in every spelling, launch lines.
#include "audit/script_reader.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;

namespace {

const Assignment* find_assignment(const ScriptModel& m, const std::string& name)
{
  const Assignment* found = nullptr;
  for (const auto& a : m.assignments) {
    if (a.name == name) {
      found = &a;
    }
  }
  return found;
}

std::vector<std::string> texts(const std::vector<Word>& words)
{
  std::vector<std::string> out;
  for (const auto& w : words) {
    out.push_back(w.text());
  }
  return out;
}

} // namespace

TEST_CASE("directives: long and short, '=' or space, several per line, last wins")
{
  const ScriptModel m = read_script("#!/bin/bash\n"
                                    "#SBATCH --nodes=2\n"
                                    "#SBATCH -N 4 --gres=gpu:8\n"
                                    "#SBATCH --ntasks-per-node 1   # one torchrun per node\n"
                                    "#SBATCH -J\"my job\"\n"
                                    "## SBATCH --nodes=64\n"
                                    "#SBATCH --signal=TERM@60\n");
  REQUIRE(m.directive("nodes") != nullptr);
  CHECK(m.directive("nodes")->value == "4");
  CHECK(m.directive("nodes")->spelled == "-N");
  CHECK(m.position(m.directive("nodes")->offset).line == 3);
  CHECK(m.position(m.directive("nodes")->offset).column == 9);
  CHECK(m.directive("gres")->value == "gpu:8");
  CHECK(m.directive("ntasks-per-node")->value == "1");
  CHECK(m.directive("job-name")->value == "my job");
  CHECK(m.directive("signal")->value == "TERM@60");
}

TEST_CASE("directives after the first command are ignored, as sbatch does")
{
  const ScriptModel m = read_script("#!/bin/bash\n#SBATCH --nodes=2\nset -e\n#SBATCH --nodes=8\n");
  CHECK(m.directive("nodes")->value == "2");
  REQUIRE(m.directives.size() == 2);
  CHECK(m.directives[1].ignored);
  CHECK(m.line_of(m.directives[1].offset) == 4);
}

TEST_CASE("continuations keep physical line numbers of each word")
{
  const ScriptModel m = read_script("srun \\\n  --nodes=2 \\\n  python train.py \\\n    --lr 1e-4\n");
  REQUIRE(m.launches.size() == 1);
  const Launch& l = m.launches[0];
  REQUIRE(l.program);
  CHECK(l.program->text() == "train.py");
  CHECK(m.line_of(l.program->offset) == 3);
  REQUIRE(l.args.size() == 2);
  CHECK(m.line_of(l.args[1].offset) == 4);
  CHECK(m.position(l.args[1].offset).column == 10);
}

TEST_CASE("quotes: single, double, ANSI-C, escapes")
{
  const ScriptModel m = read_script("A='x $y'\nB=\"pre ${A} post\"\nC=$'a\\tb'\nD=\\$HOME\n");
  CHECK(find_assignment(m, "A")->value[0].text() == "x $y");
  CHECK(find_assignment(m, "B")->value[0].text() == "pre x $y post");
  CHECK(find_assignment(m, "C")->value[0].text() == "a\tb");
  CHECK(find_assignment(m, "D")->value[0].text() == "$HOME");
  CHECK(find_assignment(m, "D")->known);
}

TEST_CASE("heredocs are data, not commands")
{
  const ScriptModel m = read_script("cat > cfg.yaml <<'EOF'\nexport CUDA_DEVICE_MAX_CONNECTIONS=8\nsrun python x.py\nEOF\n"
                                    "cat <<-END\n\tfoo\n\tEND\nexport A=1\n");
  CHECK(m.launches.empty());
  REQUIRE(m.assignments.size() == 1);
  CHECK(m.assignments[0].name == "A");
  CHECK(m.line_of(m.assignments[0].offset) == 8);
  CHECK(m.heredocs.size() == 2);
}

TEST_CASE("arrays, += and expansion into the launch line")
{
  const ScriptModel m = read_script("ARGS=(\n  --tensor-model-parallel-size 4 # tp\n  --num-layers 32\n)\n"
                                    "ARGS+=(--seq-length \"$SEQ\")\nSEQ=4096\n"
                                    "torchrun --nproc_per_node 8 pretrain_gpt.py \"${ARGS[@]}\" --lr 1\n");
  REQUIRE(m.launches.size() == 1);
  const Launch& l = m.launches[0];
  CHECK(texts(l.args) == std::vector<std::string>{"--tensor-model-parallel-size", "4", "--num-layers", "32",
                                                  "--seq-length", "${SEQ}", "--lr", "1"});
  CHECK(m.line_of(l.args[1].offset) == 2);
  CHECK(m.line_of(l.args[3].offset) == 3);
  CHECK(!l.args[5].known);  // SEQ was not set yet when ARGS+= ran
}

TEST_CASE("GPT_ARGS strings are split where expanded unquoted")
{
  const ScriptModel m = read_script("TP=2\nGPT_ARGS=\"\n  --tensor-model-parallel-size $TP\n  --pipeline-model-parallel-size $((TP*2))\n\"\n"
                                    "python -m torch.distributed.run --nproc-per-node=8 pretrain_gpt.py $GPT_ARGS $EXTRA\n");
  REQUIRE(m.launches.size() == 1);
  const Launch& l = m.launches[0];
  REQUIRE(l.args.size() == 5);
  CHECK(l.args[1].text() == "2");
  CHECK(m.line_of(l.args[1].offset) == 1);  // the value came from TP=2
  CHECK(l.args[3].text() == "4");
  CHECK(m.line_of(l.args[2].offset) == 4);
  CHECK(l.args[4].opaque);
  CHECK(l.has("torchrun"));
  CHECK(l.stage("torchrun")->find("nproc_per_node")->value->text() == "8");
}

TEST_CASE("defaults, SLURM variables from directives, unknowns")
{
  const ScriptModel m = read_script("#SBATCH -N 2\nNN=${NNODES:-4}\nX=$SLURM_JOB_NUM_NODES\nY=$1\nZ=$(hostname)\n");
  CHECK(find_assignment(m, "NN")->value[0].text() == "4");
  CHECK(find_assignment(m, "X")->value[0].text() == "2");
  CHECK(m.line_of(find_assignment(m, "X")->value[0].value.offsets[0]) == 1);
  CHECK(!find_assignment(m, "Y")->known);
  CHECK(!find_assignment(m, "Z")->known);
}

TEST_CASE("export, unset, plain assignment, export NAME, set -x")
{
  const ScriptModel m = read_script("set -euxo pipefail\nA=1\nexport B=2 C\nexport A\nunset B\nset +x\n");
  CHECK(find_assignment(m, "A")->exported);
  CHECK(find_assignment(m, "A")->kind == AssignKind::export_only);
  CHECK(find_assignment(m, "B")->kind == AssignKind::unset);
  REQUIRE(m.xtrace.size() == 2);
  CHECK(m.xtrace[0].second);
  CHECK(!m.xtrace[1].second);
}

TEST_CASE("launchers: srun + pyxis + uv run + bash -c + mpirun + deepspeed")
{
  const ScriptModel m = read_script(
    "srun --container-image=nvcr.io/x --container-env=A,B -l uv run --no-sync python -u train.py --a 1\n"
    "srun -N 2 bash -c 'export X=1; cd /w && torchrun --nnodes 2 pretrain_gpt.py --b 2'\n"
    "mpirun -np 16 -x NCCL_DEBUG=INFO --mca btl tcp python pretrain_gpt.py --c\n"
    "deepspeed --num_gpus 8 train.py --deepspeed ds.json\n"
    "srun hostname\necho done\n");
  REQUIRE(m.launches.size() == 5);
  CHECK(m.launches[0].stage("srun")->find("container-env")->value->text() == "A,B");
  CHECK(m.launches[0].program->text() == "train.py");
  CHECK(m.launches[0].python);
  CHECK(m.launches[1].has("torchrun"));
  CHECK(m.launches[1].program->text() == "pretrain_gpt.py");
  REQUIRE(!m.launches[1].env.empty());
  CHECK(m.launches[1].env[0].name == "X");
  CHECK(m.launches[2].program->text() == "pretrain_gpt.py");
  CHECK(m.launches[2].stage("mpirun")->find("np")->value->text() == "16");
  CHECK(m.launches[3].has("deepspeed"));
  CHECK(!m.launches[4].python);
}

TEST_CASE("per-task expansions inside single quotes are not the batch shell's")
{
  const ScriptModel m = read_script("srun bash -c 'echo $SLURM_PROCID'\nsrun bash -c \"echo $SLURM_NODEID\"\n");
  int batch = 0;
  int task = 0;
  for (const auto& use : m.uses) {
    (use.batch_shell ? batch : task) += 1;
  }
  CHECK(batch == 1);
  CHECK(task == 1);
}

TEST_CASE("template mode drops section-tag lines and makes {{…}} unknown")
{
  ReadOptions options;
  options.template_mode = true;
  const ScriptModel m = read_script("#SBATCH --nodes={{nodes}}\n{{#x}}\n#SBATCH --signal=TERM@60\n{{/x}}\n"
                                    "srun \\\n{{#c}}\n  --container-image={{{img}}} \\\n{{/c}}\n  {{{python_q}}} -m torch.distributed.run {{{program_q}}}\n",
                                    options);
  CHECK(m.directive("signal") != nullptr);
  REQUIRE(m.launches.size() == 1);
  CHECK(m.launches[0].has("torchrun"));
  CHECK(m.launches[0].stage("srun")->find("container-image") != nullptr);
}
