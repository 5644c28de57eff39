// lg::secrets: the one judgement of "holds a credential" for check, audit,
// render and the journal. Issue 13 listed token counts taken for secrets.
#include "util/secrets.hpp"

#include <doctest/doctest.h>

using lg::secrets::holds_secret;
using lg::secrets::secret_name;

TEST_SUITE_BEGIN("util");

TEST_CASE("secrets: token counts and token paths are not secrets")
{
  CHECK_FALSE(holds_secret("TOTAL_TOKENS", "300B"));
  CHECK_FALSE(holds_secret("TRAIN_TOKENS", "1000000000"));
  CHECK_FALSE(holds_secret("TOKENS_DIR", "/data/tokens"));
  CHECK_FALSE(holds_secret("TOKENIZER_NAME_OR_PATH", "meta-llama/Llama-3-8B"));
  CHECK_FALSE(holds_secret("HF_TOKEN_PATH", "run-secrets-hf-token"));
  CHECK_FALSE(secret_name("MAX_TOKENS"));
}

TEST_CASE("secrets: a secret name with a credential-shaped value is a secret; placeholders and expansions are not")
{
  CHECK(holds_secret("WANDB_API_KEY", "0123456789abcdef0123456789abcdef01234567"));
  CHECK(holds_secret("HF_TOKEN", "abcdEFGH12345678"));
  CHECK(holds_secret("DB_PASSWORD", "hunter2hunter2"));
  CHECK_FALSE(holds_secret("WANDB_API_KEY", "xxx"));
  CHECK_FALSE(holds_secret("WANDB_API_KEY", "your_own_wandb_api_key"));
  CHECK_FALSE(holds_secret("HF_TOKEN", "$(cat ~/.hf_token)"));
  CHECK_FALSE(holds_secret("HF_TOKEN", "/home/me/.cache/token"));
  CHECK_FALSE(holds_secret("AWS_ACCESS_KEY_ID", "AKIAnotakeyidvalue12"));  // the id names the key; AKIA… is 20 chars
}

TEST_CASE("secrets: a known token format is a secret whatever the name")
{
  CHECK(holds_secret("EXTRA", "hf_abcdefghijklmnopqrstuvwxyz0123456789"));
  CHECK(holds_secret("X", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"));
  CHECK(holds_secret("KEY_FOR_S3", "AKIAABCDEFGHIJKLMNOP"));
}

TEST_CASE("secrets: redact_assignments hides secret values in a bare assignment and an option's list")
{
  using lg::secrets::redact_assignments;
  // sbatch --export takes "ALL," then NAME or NAME=VALUE items (Slurm's sbatch
  // man page, --export): only the items that hold a secret change.
  CHECK(redact_assignments("--export=ALL,HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz0123456789,WANDB_MODE=offline")
        == "--export=ALL,HF_TOKEN=<secret, not shown>,WANDB_MODE=offline");
  CHECK(redact_assignments("WANDB_API_KEY=0123456789abcdef0123456789abcdef01234567")
        == "WANDB_API_KEY=<secret, not shown>");
  CHECK(redact_assignments("--export=HF_TOKEN") == "--export=HF_TOKEN");  // the value comes from the environment
  CHECK(redact_assignments("--export=ALL,TRAIN_TOKENS=300B") == "--export=ALL,TRAIN_TOKENS=300B");
  CHECK(redact_assignments("--exclusive") == "--exclusive");
  CHECK(redact_assignments("--comment=a,b=c,,") == "--comment=a,b=c,,");
}
