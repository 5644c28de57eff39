#include "rows.hpp"

#include "config/not_modelled.hpp"
#include "recipes.hpp"

#include <fmt/core.h>

namespace lg::bench {

std::string Row::problem() const
{
  return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}", release, task, model, system, precision, gpus, gbs, seq);
}

std::vector<Row> read_rows(const nlohmann::json& doc)
{
  std::vector<Row> rows;
  for (const auto& r : doc.at("rows")) {
    Row row;
    row.release = r.at("release");
    row.task = r.at("task");
    row.model = r.at("model");
    row.label = r.at("model_label");
    row.system = r.at("system");
    row.precision = r.at("precision");
    row.gpus = r.at("gpus");
    row.gbs = r.at("gbs");
    row.mbs = r.at("mbs");
    row.seq = r.at("seq");
    row.fsdp = r.value("fsdp", 0);
    row.tp = r.at("tp");
    row.pp = r.at("pp");
    row.cp = r.at("cp");
    row.vpp = r.at("vpp").is_null() ? 0 : r.at("vpp").get<int>();
    row.ep = r.value("ep", 1);
    row.tokens = r.at("tokens_per_sec_per_gpu");
    row.tflops = r.at("tflops_per_gpu");
    for (const auto& note : r.at("notes")) {
      row.without_mtp = row.without_mtp || note == "without_mtp";
    }
    apply_correction(row);
    rows.push_back(row);
  }
  return rows;
}

int gpus_per_node(const std::string& system)
{
  return system == "gb200" || system == "gb300" ? 4 : 8;
}

std::string job_text(const Row& row, bool dispatcher)
{
  const int gpn = gpus_per_node(row.system);
  std::string precision = row.precision;
  for (char& c : precision) {
    c = c == '_' ? '-' : c;
  }
  std::string text = fmt::format("[job]\nname = \"bench\"\n[model]\npreset = \"{}\"\nseq_length = {}\n",
                                 row.model, row.seq);
  if (row.without_mtp) {
    text += "mtp_num_layers = 0\n";
  }
  text += fmt::format("[parallelism]\ntp = {}\npp = {}\ncp = {}\nep = {}\nsequence_parallel = {}\n",
                      row.tp, row.pp, row.cp, row.ep, row.tp > 1 ? "true" : "false");
  if (row.vpp > 1) {
    text += fmt::format("vpp = {}\n", row.vpp);
  }
  const auto recipe = recipe_lines(row);
  text += recipe.parallelism;
  if (row.ep > 1) {
    text += "etp = 1\n";
  }
  text += fmt::format("[training]\nmicro_batch_size = {}\nglobal_batch_size = {}\nprecision = \"{}\"\n"
                      "distributed_optimizer = true\noverlap_grad_reduce = true\n"
                      "overlap_param_gather = true\ntp_comm_overlap = {}\nfsdp = \"{}\"\n"
                      "optimizer = {{ grad_dtype = \"bf16\"{} }}\n",
                      row.mbs, row.gbs, precision, row.tp > 1 ? "true" : "false", row.fsdp > 0 ? "megatron" : "none",
                      // scripts/performance/run_script.py:150-151 at the table's commit: a BF16
                      // run with Adam turns on the precision-aware optimizer (fp32 moments kept).
                      row.precision == "bf16" ? ", precision_aware = true" : "");
  text += recipe.training;
  text += dispatcher ? recipe.dispatcher_training : "";
  text += row.extra_training;
  if (row.task == "lora") {
    text += "[peft]\nmethod = \"lora\"\n";
  }
  if (dispatcher && !recipe.moe.empty()) {
    text += "[model.moe]\n" + recipe.moe;
  }
  text += fmt::format("[cluster]\ngpu = \"{}\"\nnodes = {}\ngpus_per_node = {}\n", row.system,
                      row.gpus / gpn, gpn);
  return text;
}

bool dispatcher_judged(const Row& row, const config::LoadOptions& options)
{
  if (recipe_lines(row).moe.empty()) {
    return false;
  }
  return config::not_modelled(row_spec(row, options, true)).size() == config::not_modelled(row_spec(row, options)).size();
}

config::JobSpec row_spec(const Row& row, const config::LoadOptions& options, bool dispatcher)
{
  return config::load_job_text(job_text(row, dispatcher), "bench.toml", options);
}

} // namespace lg::bench
