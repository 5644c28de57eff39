#!/usr/bin/env python3
"""Count the parameters of every model preset and compare with its published total.

Usage: scripts/count_parameters.py [--tolerance PCT] [--verbose] [PRESET.toml ...]

Reads presets/models/*.toml (or the files given) with tomllib and applies the standard
Megatron shape formulas (NVIDIA/Megatron-LM
megatron/training/theoretical_memory_usage.py):

  attention (GQA)   2*h*a*d + 2*h*g*d                     (Q, O + K, V)
  attention (MLA)   q  = h*a*(qk+rope)                     if q_lora_rank == 0
                       = q_lora*(h + a*(qk+rope) + norm)   otherwise
                    kv = kv_lora*(h + a*(qk+v) + norm) + h*rope
                    o  = a*v*h
  qk_layernorm      2*d*norm per layer (GQA only; MLA's norms are in its formula)
  MLP               3*h*F gated (swiglu/geglu), else 2*h*F
  norms             2 per layer, h*norm each; norm = 1 RMSNorm, 2 LayerNorm; + final norm
  biases            add_bias_linear: QKV, O, fc1, fc2 (and every expert's), router (E);
                    add_qkv_bias: QKV only
  embeddings        V*h, doubled when untie_embeddings_and_output_weights;
                    + max_position_embeddings*h for learned_absolute
  MoE layer         routed E*mlp(F_e) + shared mlp(F_s) + router h*E (+E with router_bias)
                    + h if shared_expert_gate
  MTP               per module: one extra copy of the last layer + 2h*h eh_proj + 2 norms

The vocabulary is counted unpadded (published counts use the checkpoint's vocabulary).
Exits 1 when any preset is more than --tolerance percent (default 1) from its published total.
Standard library only (Python >= 3.11 for tomllib).
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import tomllib

REPO = pathlib.Path(__file__).resolve().parent.parent
GATED = {"swiglu", "geglu"}
KNOWN_ACTIVATIONS = GATED | {"gelu", "squared_relu"}


def layer_pattern(model: dict) -> list[int]:
    """Per layer 1 = MoE, 0 = dense; all zeros for a dense model."""
    n = model["num_layers"]
    moe = model.get("moe")
    if not moe:
        return [0] * n
    freq = moe.get("layer_freq", 1)
    if isinstance(freq, int):
        return [1 if i % freq == 0 else 0 for i in range(n)]
    if len(freq) != n:
        raise ValueError(f"moe.layer_freq has {len(freq)} entries, num_layers is {n}")
    if any(x not in (0, 1) for x in freq):
        raise ValueError("moe.layer_freq list entries must be 0 or 1")
    return list(freq)


def mlp_params(h: int, f: int, gated: bool, bias: bool) -> int:
    fc1_out = 2 * f if gated else f
    p = h * fc1_out + f * h
    if bias:
        p += fc1_out + h
    return p


def count(model: dict) -> dict:
    h = model["hidden_size"]
    a = model["num_attention_heads"]
    g = model.get("num_query_groups", 0) or a
    d = model.get("kv_channels", 0) or h // a
    vocab = model["vocab_size"]
    act = model.get("activation", "swiglu")
    if act not in KNOWN_ACTIVATIONS:
        raise ValueError(f"unknown activation {act!r}")
    gated = act in GATED
    norm = 1 if model.get("normalization", "RMSNorm") == "RMSNorm" else 2
    bias = bool(model.get("add_bias_linear", False))
    qkv_bias = bias or bool(model.get("add_qkv_bias", False))
    mla = model.get("mla")
    moe = model.get("moe")

    # Attention (excluding the input layernorm).
    if mla:
        qk = mla.get("qk_head_dim", 128)
        rope = mla.get("qk_pos_emb_head_dim", 64)
        v = mla.get("v_head_dim", 128)
        q_lora = mla.get("q_lora_rank", 0) or 0
        kv_lora = mla.get("kv_lora_rank", 512)
        if q_lora == 0:
            q = h * a * (qk + rope)
        else:
            q = q_lora * (h + a * (qk + rope) + norm)
        kv = kv_lora * (h + a * (qk + v) + norm) + h * rope
        o = a * v * h
        attn = q + kv + o
        if bias:  # not used by any shipped MLA preset; output bias only
            attn += h
    else:
        attn = 2 * h * a * d + 2 * h * g * d
        if qkv_bias:
            attn += (a + 2 * g) * d
        if bias:
            attn += h
        if model.get("qk_layernorm", False):
            attn += 2 * d * norm

    layer_norms = 2 * h * norm
    dense_mlp = mlp_params(h, model["ffn_hidden_size"], gated, bias)
    dense_layer = attn + dense_mlp + layer_norms

    moe_layer = moe_layer_active = 0
    if moe:
        e = moe["num_experts"]
        k = moe.get("router_topk", 2)
        f_e = moe["moe_ffn_hidden_size"]
        f_s = moe.get("shared_expert_intermediate_size", 0) or 0
        expert = mlp_params(h, f_e, gated, bias)
        shared = mlp_params(h, f_s, gated, bias) if f_s else 0
        router = h * e + (e if (moe.get("router_bias", False) or bias) else 0)
        gate = h if moe.get("shared_expert_gate", False) else 0
        common = attn + shared + router + gate + layer_norms
        moe_layer = common + e * expert
        moe_layer_active = common + k * expert

    pattern = layer_pattern(model)
    n_moe = sum(pattern)
    n_dense = len(pattern) - n_moe
    block = n_dense * dense_layer + n_moe * moe_layer + h * norm  # + final norm
    block_active = n_dense * dense_layer + n_moe * moe_layer_active + h * norm

    mtp = model.get("mtp_num_layers", 0) or 0
    last_is_moe = bool(pattern and pattern[-1])
    mtp_each = (moe_layer if last_is_moe else dense_layer) + 2 * h * h + 2 * h * norm
    mtp_each_active = (moe_layer_active if last_is_moe else dense_layer) + 2 * h * h + 2 * h * norm

    untied = model.get("untie_embeddings_and_output_weights", True)
    emb = vocab * h * (2 if untied else 1)
    if model.get("position_embedding_type", "rope") == "learned_absolute":
        emb += (model.get("max_position_embeddings", 0) or model.get("seq_length", 4096)) * h

    total = block + mtp * mtp_each + emb
    active = block_active + mtp * mtp_each_active + emb
    return {
        "total": total,
        "active": active,
        "embedding": emb,
        "mtp": mtp * mtp_each,
        "dense_layers": n_dense,
        "moe_layers": n_moe,
    }


def fmt_b(n: int) -> str:
    return f"{n / 1e9:,.3f}B"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", type=pathlib.Path)
    ap.add_argument("--tolerance", type=float, default=1.0, help="allowed |diff| in percent")
    ap.add_argument("--verbose", action="store_true", help="show active params and layer mix")
    args = ap.parse_args()

    files = args.files or sorted((REPO / "presets" / "models").glob("*.toml"))
    if not files:
        print("no presets found", file=sys.stderr)
        return 2

    rows = []
    failed = False
    for path in files:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
        model = data["model"]
        try:
            c = count(model)
        except (KeyError, ValueError) as exc:
            print(f"{path.name}: {exc}", file=sys.stderr)
            failed = True
            continue
        published = model.get("published_parameters", 0)
        diff = (c["total"] - published) / published * 100 if published else float("nan")
        ok = published and abs(diff) <= args.tolerance
        failed |= not ok
        rows.append((path.stem, c, published, diff, ok))

    name_w = max(len(r[0]) for r in rows) if rows else 10
    header = f"{'preset':<{name_w}}  {'computed':>19}  {'published':>19}  {'diff %':>7}"
    if args.verbose:
        header += f"  {'active':>10}  layers(dense+moe)"
    print(header)
    print("-" * len(header))
    for name, c, published, diff, ok in rows:
        line = f"{name:<{name_w}}  {c['total']:>19,}  {published:>19,}  {diff:>+7.2f}"
        if args.verbose:
            line += f"  {fmt_b(c['active']):>10}  {c['dense_layers']}+{c['moe_layers']}"
            if c["mtp"]:
                line += f" (+MTP {fmt_b(c['mtp'])})"
        if not ok:
            line += "  <-- over tolerance"
        print(line)
    print(f"\n{len(rows)} presets, tolerance {args.tolerance}%: {'FAIL' if failed else 'all within'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
