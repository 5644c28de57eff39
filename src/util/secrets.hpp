// One judgement of "this variable holds a credential", shared by `check`
// (job [env]), `audit` (scripts), `render -o` and the run journal (files that
// hold one are written 0600). The name and the value are judged together:
// HF_TOKEN=hf_… is a secret, TOTAL_TOKENS=300B, TRAIN_TOKENS=1000000 and
// TOKENS_DIR=/data/tokens are not; a known credential format (hf_…, ghp_…,
// AKIA…) is a secret whatever the name. Pure.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lg::secrets {

// The name says it holds a credential: TOKEN, SECRET, PASSWORD, PASSWD, PAT
// as a whole `_`-separated word, or API_KEY / ACCESS_KEY / PRIVATE_KEY /
// AUTH_KEY, unless a word says it names something else (TOKENS, _DIR, _PATH,
// _FILE, _COUNT, _URL …).
bool secret_name(std::string_view name);

// The value has the shape of a known credential format.
bool token_shaped(std::string_view value);

// The value could be a credential: not empty, not a number or size ("300B"),
// not a path or URL without user info, not a placeholder ("xxx",
// "<your key>", "your_…"), not an expansion ("$HF_TOKEN", "$(cat …)").
bool secret_shaped(std::string_view value);

// Name and value together: a secret name with a secret-shaped value, or any
// name with a token-shaped value.
bool holds_secret(std::string_view name, std::string_view value);

// Names among `env` whose value holds a secret, in order.
std::vector<std::string> secret_names(const std::vector<std::pair<std::string, std::string>>& env);

// What replaces a secret value in anything launchguard prints.
inline constexpr std::string_view k_redacted = "<secret, not shown>";

// `word` as it may be shown: every `NAME=VALUE` assignment in it whose value
// holds a secret has the value replaced by k_redacted. Reads a bare
// assignment (`HF_TOKEN=hf_…`) and an option's comma list (`--export=ALL,
// HF_TOKEN=hf_…,WANDB_MODE=offline`); anything else is returned unchanged.
std::string redact_assignments(std::string_view word);

} // namespace lg::secrets
