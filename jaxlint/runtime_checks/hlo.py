"""Statistics of compiled HLO text: op histograms, fusions, copies, loops, callbacks.

Input is `jax.jit(f).lower(...).compile().as_text()`, the optimized HLO after fusion, so a
fusion break or an extra copy shows as an op here. Pure text processing, no jax import.
The histogram counts the ops XLA schedules: computations that fusions call (`calls=`) and the
small reducer computations (`to_apply=` of reduce, scatter, sort, ...) are folded into their
caller, since their inner ops run inside one kernel. Ops inside fusions are counted apart.
"""

from __future__ import annotations

import re
from collections import Counter

_HEADER = re.compile(r"^\s*(?:ENTRY\s+)?%?(?P<name>[\w.\-]+)\s*(?:\(.*\))?\s*(?:->.*)?\{\s*$")
_INSTRUCTION = re.compile(r"^\s*(?:ROOT\s+)?%?[\w.\-]+\s*=\s*(?P<rest>.*)$")
_CALLED = re.compile(r"\b(?P<kind>calls|to_apply)=%?(?P<name>[\w.\-]+)")
_CALLBACK = re.compile(r'custom_call_target="[^"]*callback[^"]*"', re.IGNORECASE)

# Ops that carry no work: counting them would only add noise to a histogram.
_BOOKKEEPING = {"parameter", "constant", "get-tuple-element", "tuple", "bitcast", "after-all"}


def parse_computations(text: str) -> dict[str, list[tuple[str, str]]]:
    """Computation name -> [(opcode, instruction text)], in order of appearance."""
    computations: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] | None = None
    for line in text.splitlines():
        if current is None:
            header = _HEADER.match(line)
            if header and not line.lstrip().startswith("HloModule"):
                current = computations.setdefault(header.group("name"), [])
            continue
        if line.strip() == "}":
            current = None
            continue
        instruction = _INSTRUCTION.match(line)
        if instruction:
            opcode = _opcode(instruction.group("rest"))
            if opcode:
                current.append((opcode, line))
    return computations


def _opcode(rest: str) -> str | None:
    """The opcode after the shape: `f32[8]{0} add(...)`, `(f32[], s32[]) while(...)`."""
    position = 0
    if rest.startswith("("):
        depth = 0
        for position, char in enumerate(rest):
            depth += char == "("
            depth -= char == ")"
            if depth == 0:
                break
        position += 1
    else:
        while position < len(rest) and not rest[position].isspace():
            position += 1
    match = re.match(r"\s*([a-z][\w\-]*)\(", rest[position:])
    return match.group(1) if match else None


def hlo_statistics(text: str) -> dict:
    """Op histogram of scheduled ops and the counts that show fusion breaks and copies."""
    computations = parse_computations(text)
    inner: set[str] = set()
    for instructions in computations.values():
        for opcode, line in instructions:
            for called in _CALLED.finditer(line):
                if called.group("kind") == "calls" and opcode != "fusion":
                    continue  # `calls=` of async wrappers and custom calls: their ops are real
                if called.group("kind") == "to_apply" and opcode == "call":
                    continue  # a `call` runs its computation's ops as top-level work
                inner.add(called.group("name"))
    histogram: Counter[str] = Counter()
    fused: Counter[str] = Counter()
    callbacks = 0
    for name, instructions in computations.items():
        for opcode, line in instructions:
            if opcode in _BOOKKEEPING:
                continue
            (fused if name in inner else histogram)[opcode] += 1
            if opcode == "custom-call" and _CALLBACK.search(line):
                callbacks += 1
    return {
        "ops": dict(sorted(histogram.items())),
        "op_count": sum(histogram.values()),
        "fusions": histogram["fusion"],
        "fused_ops": sum(fused.values()),
        "copies": histogram["copy"] + histogram["copy-start"],
        "transposes": histogram["transpose"] + fused["transpose"],
        "dynamic_slices": sum(histogram[op] + fused[op] for op in ("dynamic-slice", "dynamic-update-slice")),
        "while_loops": histogram["while"],
        "conditionals": histogram["conditional"],
        "custom_calls": histogram["custom-call"],
        "host_callbacks": callbacks,
    }


_DTYPE_BYTES = {"pred": 1, "s8": 1, "u8": 1, "s16": 2, "u16": 2, "f16": 2, "bf16": 2, "s32": 4, "u32": 4,
                "f32": 4, "s64": 8, "u64": 8, "f64": 8, "c64": 8, "c128": 16}
_CONSTANT = re.compile(r"=\s*(?P<dtype>[a-z]+\d*)\[(?P<dims>[\d,]*)\][^=]*?\bconstant\(")


def constant_bytes(text: str) -> int:
    """Bytes of the constants in HLO text (`f32[512,256]{1,0} constant({...})`): what is embedded."""
    total = 0
    for match in _CONSTANT.finditer(text):
        size = _DTYPE_BYTES.get(match.group("dtype"))
        if size is None:
            continue
        for dim in filter(None, match.group("dims").split(",")):
            size *= int(dim)
        total += size
    return total
