// Errors from talking to Slurm, split by what the caller should do next.
#pragma once

#include "util/error.hpp"

#include <string>

namespace lg::slurm {

// Slurm did not answer: the controller or database was unreachable or busy
// ("Socket timed out on send/recv operation", "Unable to contact slurm
// controller", connection refused), or the command ran past its timeout.
// The same request may succeed later: back off and retry. After a failed
// submit the job may still have been queued; look for it with
// Client::find_by_tag before submitting again.
class TransientSlurmError : public SystemError
{
public:
  using SystemError::SystemError;
};

// Slurm answered and refused (bad account, invalid partition, time limit over
// the partition's): retrying the same request cannot help.
class SlurmRejected : public SystemError
{
public:
  using SystemError::SystemError;

  // Slurm's own reason, without the "sbatch: error: " prefixes.
  std::string slurm_message;
};

} // namespace lg::slurm
