#!/usr/bin/env python3
"""Audit quality on the public development scripts (issue 13).

    bench/audit/score.py LAUNCHGUARD CORPUS_DIR

CORPUS_DIR holds the scripts listed in the sbatch corpus index, each fetched
byte for byte from its public repository at the commit the index gives and
named by the index's file column (a NN__ prefix is allowed). They are not in
this repository; without the directory the benchmark says so and exits 2.

Prints:
  * precision: findings judged right / judged (bench/audit/judgements.tsv;
    findings with no judgement are listed as unjudged, never counted right);
  * recall: known problems (bench/audit/problems.tsv) reported by their rule
    on their line (line 0: anywhere in the file);
  * mutation recall per defect kind: a defect injected into every script is
    found by its rule on the injected line;
  * --fix round trips: the fixed script parses (bash -n) when the original
    did, a second --fix changes nothing, and no finding appears that the
    original did not have.
"""
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def table(name):
    rows = []
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            rows.append(line.rstrip("\n").split("\t"))
    return rows


# The audit runs from an empty directory, standing in for a fresh submit
# directory: relative output paths (audit.output_directory) are judged against
# the directory sbatch runs in, so a logs/ left where the benchmark is started
# (the demo writes one into the checkout) must not change the figures.
SUBMIT_DIR = tempfile.mkdtemp(prefix="lg-audit-submit.")
atexit.register(shutil.rmtree, SUBMIT_DIR, True)


def audit(lg, path, extra=()):
    out = subprocess.run([lg, "audit", path, "--format", "json", *extra], capture_output=True, text=True, timeout=60,
                         cwd=SUBMIT_DIR)
    if out.returncode not in (0, 1):
        return None
    return json.loads(out.stdout)["files"][0]["findings"]


def find_files(corpus, names):
    found = {}
    for entry in os.listdir(corpus):
        for name in names:
            if entry == name or entry.endswith("__" + name):
                found[name] = os.path.join(corpus, entry)
    return found


# Feature groups of the development scripts, by the upstream project the
# script comes from (what launches it and how its job is written).
GROUPS = [
    ("Megatron-DeepSpeed", ("bigscience-workshop__", "deepspeedai__Megatron-DeepSpeed", "pytorch__deepspeed")),
    ("Megatron Bridge key=value", ("NVIDIA-NeMo__Megatron-Bridge",)),
    ("NeMo / generated (NeMo-Run, CloudAI, MLPerf, launcher)", ("NVIDIA-NeMo__Run", "NVIDIA__cloudai", "mlcommons__",
                                                             "nsight__nemotron")),
    ("Megatron-LM command line", ("NVIDIA__Megatron-LM", "swiss-ai__Megatron-LM", "megatron__megatron-lm")),
    ("other trainers (torchtitan, FSDP, nanotron, picotron, NeoX, Lightning, launchers)", ("",)),
]


def group_of(name):
    for group, keys in GROUPS:
        if any(k in name for k in keys):
            return group
    return GROUPS[-1][0]


def precision_recall(lg, files):
    judged = {(r[0], int(r[1]), r[2]): r[3] for r in table("judgements.tsv")}
    right = wrong = 0
    unjudged = []
    per_rule = {}
    findings_of = {}
    for name, path in sorted(files.items()):
        findings = audit(lg, path) or []
        findings_of[name] = findings
        for f in findings:
            key = (name, f["line"], f["rule"])
            verdict = judged.get(key)
            stats = per_rule.setdefault(f["rule"], [0, 0, 0])
            if verdict == "right":
                right += 1
                stats[0] += 1
            elif verdict == "wrong":
                wrong += 1
                stats[1] += 1
            else:
                unjudged.append(key)
                stats[2] += 1
    print(f"precision: {right}/{right + wrong} judged right"
          f" ({100.0 * right / max(1, right + wrong):.1f}%), {len(unjudged)} unjudged")
    for rule, (r, w, u) in sorted(per_rule.items()):
        print(f"  {rule:45s} right {r:3d}  wrong {w:3d}  unjudged {u:3d}")
    for key in unjudged:
        print(f"  unjudged: {key[0]}:{key[1]} {key[2]}")
    found = total = 0
    per_group = {}
    for name, findings in findings_of.items():
        g = per_group.setdefault(group_of(name), [0, 0, 0, 0, 0])  # right, wrong, found, total, scripts
        g[4] += 1
        for f in findings:
            verdict = judged.get((name, f["line"], f["rule"]))
            g[0] += verdict == "right"
            g[1] += verdict == "wrong"
    for name, line, kind, rule, note in table("problems.tsv"):
        if name not in files:
            continue
        total += 1
        hit = any(f["rule"] == rule and (int(line) == 0 or f["line"] == int(line)) for f in findings_of[name])
        found += hit
        per_group.setdefault(group_of(name), [0, 0, 0, 0, 0])[2] += hit
        per_group[group_of(name)][3] += 1
        if not hit:
            print(f"  missed: {name}:{line} {kind} ({note})")
    print(f"recall: {found}/{total} known problems reported ({100.0 * found / max(1, total):.1f}%)")
    print("per feature group (precision = right/judged, recall = found/known):")
    for group, _ in GROUPS:
        if group in per_group:
            r, w, fo, to, n = per_group[group]
            print(f"  {group[:60]:60s} scripts {n:2d}  precision {r}/{r + w}  recall {fo}/{to}")


# Each mutation: (kind, rule, function(text) -> (mutated text, 1-based line)).
def after_directives(text):
    lines = text.split("\n")
    at = 1
    for i, l in enumerate(lines):
        if l.startswith("#SBATCH") or l.startswith("#!"):
            at = i + 1
    return lines, at


def m_unexpanded(text):
    lines, at = after_directives(text)
    lines.insert(at, "#SBATCH --time=$WALLTIME")
    return "\n".join(lines), at + 1


def m_placeholder(text):
    lines, at = after_directives(text)
    lines.insert(at, "#SBATCH --account=<your-account>")
    return "\n".join(lines), at + 1


def m_crlf(text):
    return text.replace("\r\n", "\n").replace("\n", "\r\n"), 1


def m_parse(text):
    return text.rstrip("\n") + "\nif [ -n \"$SLURM_JOB_ID\" ]; then\n  echo unterminated\n", 0


def m_use_before(text):
    lines, at = after_directives(text)
    lines[at:at] = ["export LG_MUTANT_LOG=$LG_MUTANT_DIR/log", "LG_MUTANT_DIR=/tmp/lg-mutant"]
    return "\n".join(lines), at + 1


def m_sbatch_var(text):
    lines, at = after_directives(text)
    lines.insert(at, "LG_MUTANT_NODES=$SBATCH_NODES")
    return "\n".join(lines), at + 1


def m_nounset(text):
    lines, at = after_directives(text)
    lines[at:at] = ["set -u", "LG_MUTANT_CONFIG=$1"]
    return "\n".join(lines), at + 2


def m_array_comment(text):
    lines, at = after_directives(text)
    lines[at:at] = ["LG_MUTANT_ARGS=(", "  --lg-mutant 1 \\ # a comment", ")"]
    return "\n".join(lines), at + 2


def m_host_array(text):
    lines, at = after_directives(text)
    lines.insert(at, 'LG_MUTANT_HOSTS=( "$(scontrol show hostnames "$SLURM_JOB_NODELIST")" )')
    return "\n".join(lines), at + 1


MUTATIONS = [
    ("unexpanded #SBATCH value", "audit.directive_unexpanded", m_unexpanded),
    ("placeholder in #SBATCH", "audit.placeholder", m_placeholder),
    ("CRLF line ends", "audit.crlf", m_crlf),
    ("parse error", "audit.parse_error", m_parse),
    ("use before assignment", "audit.use_before_assignment", m_use_before),
    ("SBATCH_* read in the job", "audit.sbatch_input_variable", m_sbatch_var),
    ("set -u with $1", "audit.nounset_positional", m_nounset),
    ("`\\ #` comment in an array", "audit.array_comment", m_array_comment),
    ("one-element host array", "audit.host_array_one_element", m_host_array),
]


def mutation_recall(lg, files, tmp, names):
    print("mutation recall (found by its rule on the injected line; line 0: anywhere):")
    for kind, rule, mutate in MUTATIONS:
        found = total = 0
        for name, path in sorted(files.items()):
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                text = f.read()
            mutated, line = mutate(text)
            target = os.path.join(tmp, "mutant.sh")
            with open(target, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(mutated)
            findings = audit(lg, target) or []
            total += 1
            hit = any(x["rule"] == rule and (line == 0 or x["line"] == line) for x in findings)
            found += hit
            if not hit:
                print(f"    not found in {name} (line {line})")
        print(f"  {kind:28s} {found}/{total}")


def bash_parses(path):
    return subprocess.run(["bash", "-n", path], capture_output=True).returncode == 0


def m_late_export(text):
    return text.rstrip("\n") + "\nexport NCCL_DEBUG=INFO\n", 0


FIX_VARIANTS = [("as published", lambda t: (t, 0)), ("CRLF", m_crlf), ("export after the launch", m_late_export)]


def fix_round_trips(lg, files, tmp):
    for label, variant in FIX_VARIANTS:
        fix_round_trips_of(lg, files, tmp, label, variant)


def fix_round_trips_of(lg, files, tmp, label, variant):
    ok = changed = 0
    problems = []
    for name, path in sorted(files.items()):
        target = os.path.join(tmp, "fix.sh")
        with open(path, encoding="utf-8", errors="surrogateescape") as src:
            text, _ = variant(src.read())
        with open(target, "w", encoding="utf-8", errors="surrogateescape") as dst:
            dst.write(text)
        before = audit(lg, target) or []
        parsed = bash_parses(target)
        original = open(target, "rb").read()
        r = subprocess.run([lg, "audit", "--fix", target], capture_output=True, text=True, cwd=SUBMIT_DIR)
        once = open(target, "rb").read()
        if once == original:
            if r.returncode == 3:
                problems.append(f"{name}: fix refused: {r.stderr.strip()[:160]}")
            continue
        changed += 1
        subprocess.run([lg, "audit", target, "--fix"], capture_output=True, cwd=SUBMIT_DIR)
        twice = open(target, "rb").read()
        after = audit(lg, target) or []
        budget = {}
        for f in before:
            budget[f["rule"]] = budget.get(f["rule"], 0) + 1
        new = []
        for f in after:
            if budget.get(f["rule"], 0) <= 0:
                new.append(f["rule"])
            else:
                budget[f["rule"]] -= 1
        if label == "CRLF":
            # the converted script is readable: what it configures may now be
            # reported; only a new parse error would be the fix's fault
            new = [r for r in new if r == "audit.parse_error"]
        good = (not parsed or bash_parses(target)) and twice == once and not new
        ok += good
        if not good:
            problems.append(f"{name}: parses={bash_parses(target)} idempotent={twice == once} new={new}")
    print(f"--fix round trips ({label}): {ok}/{changed} scripts changed by --fix parse, are idempotent and add no finding")
    for p in problems:
        print(f"  {p}")


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    lg, corpus = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if not os.path.isdir(corpus):
        print(f"bench/audit: corpus directory '{corpus}' is absent: fetch the scripts of the sbatch corpus index "
              "(repository, path, commit) into it first; they are not part of this repository")
        return 2
    names = sorted({r[0] for r in table("judgements.tsv")} | {r[0] for r in table("problems.tsv")})
    files = find_files(corpus, names)
    others = [os.path.join(corpus, e) for e in os.listdir(corpus)]
    for path in others:
        base = os.path.basename(path)
        if not any(path == p for p in files.values()):
            files[base] = path  # scripts with no finding and no known problem still count for mutations
    print(f"{len(files)} scripts in {corpus}")
    precision_recall(lg, files)
    with tempfile.TemporaryDirectory() as tmp:
        mutation_recall(lg, files, tmp, names)
        fix_round_trips(lg, files, tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
