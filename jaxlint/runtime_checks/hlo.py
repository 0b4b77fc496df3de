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


def _matched_bytes(matches) -> int:
    """Bytes of the arrays whose `dtype` and `dims` groups the matches hold (unknown dtypes count 0)."""
    total = 0
    for match in matches:
        size = _DTYPE_BYTES.get(match.group("dtype"))
        if size is None:
            continue
        for dim in filter(None, match.group("dims").split(",")):
            size *= int(dim)
        total += size
    return total


def constant_bytes(text: str) -> int:
    """Bytes of the constants in HLO text (`f32[512,256]{1,0} constant({...})`): what is embedded."""
    return _matched_bytes(_CONSTANT.finditer(text))


# ---------------------------------------------------------------------- collectives

COLLECTIVE_KINDS = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute",
                    "collective-broadcast")
_SHAPE = re.compile(r"(?P<dtype>[a-z]+[0-9a-z]*)\[(?P<dims>[\d,]*)\]")
_DEFINITION = re.compile(r"^\s*(?:ROOT\s+)?%?(?P<name>[\w.\-]+)\s*=\s*(?P<rest>.*)$")
_OPERAND_NAME = re.compile(r"%(?P<name>[\w.\-]+)")
_GROUPS = re.compile(r"(?P<key>replica_groups|source_target_pairs)=(?P<value>\{\{[^=]*?\}\}|\{\}|"
                     r"\[[\d,]*\]<=\[[\d,]*\](?:T\([\d,]*\))?|mesh\[[^\]]*\]\s*\{[^}]*\})")


def shape_bytes(shape_text: str) -> int:
    """Bytes of every array shape in `shape_text` (a tuple counts each element; layouts ignored)."""
    return _matched_bytes(_SHAPE.finditer(shape_text))


def _split_result(rest: str) -> tuple[str, str]:
    """(result shape text, the text from the opcode on) of an instruction's right-hand side."""
    if rest.startswith("("):
        depth = 0
        for position, char in enumerate(rest):
            depth += char == "("
            depth -= char == ")"
            if depth == 0:
                return rest[:position + 1], rest[position + 1:].lstrip()
    shape, _, tail = rest.partition(" ")
    return shape, tail.lstrip()


def _operands(tail: str) -> str:
    """The text between the opcode's parentheses."""
    start = tail.find("(")
    depth = 0
    for position in range(start, len(tail)):
        depth += tail[position] == "("
        depth -= tail[position] == ")"
        if depth == 0:
            return tail[start + 1:position]
    return tail[start + 1:]


def group_size(groups: str | None) -> int | None:
    """Devices per group: `{{0,1},{2,3}}` -> 2, iota `[2,4]<=[8]` -> 4, `mesh['a'=2,'b'=4] {'b'}` -> 4."""
    if not groups:
        return None
    if groups.startswith("{{"):
        first = groups[2:].split("}", 1)[0]
        return len([item for item in first.split(",") if item.strip()])
    if groups.startswith("["):
        dims = [int(item) for item in groups[1:groups.index("]")].split(",") if item]
        return dims[-1] if dims else None
    if groups.startswith("mesh["):
        sizes = dict(re.findall(r"'([^']+)'=(\d+)", groups[:groups.index("]")]))
        named = re.findall(r"'([^']+)'", groups[groups.index("]"):])
        size = 1
        for axis in named:
            size *= int(sizes.get(axis, 1))
        return size
    return None


def collectives(text: str) -> list[dict]:
    """Each collective of a compiled program (`compile().as_text()`, one device's program).

    Per instruction: kind (`-start` folded into its collective; `-done` skipped), result and
    operand shapes and bytes (operands looked up by name where the text does not spell their
    shape), the replica groups as written and the devices per group, and the computation it is
    in (a collective in a loop body runs once per iteration; this counts it once).
    """
    shapes: dict[str, str] = {}
    found: list[dict] = []
    computation = None
    for line in text.splitlines():
        header = _HEADER.match(line)
        if header and not line.lstrip().startswith("HloModule") and "=" not in line.split("{")[0]:
            computation = header.group("name")
            continue
        definition = _DEFINITION.match(line)
        if not definition:
            continue
        result, tail = _split_result(definition.group("rest"))
        shapes[definition.group("name")] = result
        opcode = re.match(r"([a-z][\w\-]*)\(", tail)
        if not opcode:
            continue
        kind = opcode.group(1)
        if kind.endswith("-done"):
            continue
        base = kind[:-len("-start")] if kind.endswith("-start") else kind
        if base not in COLLECTIVE_KINDS:
            continue
        operand_text = _operands(tail)
        operand_shapes = [match.group(0) for match in _SHAPE.finditer(operand_text)]
        if not operand_shapes:
            operand_shapes = [shape.group(0) for match in _OPERAND_NAME.finditer(operand_text)
                              for shape in _SHAPE.finditer(shapes.get(match.group("name"), ""))]
        groups = _GROUPS.search(tail)
        result_shapes = [match.group(0) for match in _SHAPE.finditer(result)]
        if kind.endswith("-start") and len(result_shapes) >= 2 and base != "all-reduce":
            result_shapes = result_shapes[len(result_shapes) // 2:]  # (operands, results) of an async start
        found.append({
            "kind": base, "name": definition.group("name"), "computation": computation,
            "result_shapes": result_shapes, "result_bytes": sum(shape_bytes(shape) for shape in result_shapes),
            "operand_shapes": operand_shapes, "operand_bytes": sum(shape_bytes(shape) for shape in operand_shapes),
            "replica_groups": groups.group("value") if groups else None,
            "group_size": group_size(groups.group("value")) if groups else None,
        })
    return found


def collective_summary(found: list[dict]) -> dict[str, dict]:
    """Per kind: how many, operand and result bytes per execution of the program."""
    summary: dict[str, dict] = {}
    for item in found:
        entry = summary.setdefault(item["kind"], {"count": 0, "operand_bytes": 0, "result_bytes": 0,
                                                  "replica_groups": []})
        entry["count"] += 1
        entry["operand_bytes"] += item["operand_bytes"]
        entry["result_bytes"] += item["result_bytes"]
        if item["replica_groups"] and item["replica_groups"] not in entry["replica_groups"]:
            entry["replica_groups"].append(item["replica_groups"])
    return summary
