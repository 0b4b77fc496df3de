"""The one data table behind JAX601 (removed-api) and JAX602 (deprecated-api).

Each entry names an API by its qualified name as written (before jaxlint's canonical aliases, so
`jax.experimental.pjit.pjit` stays itself), when JAX deprecated and removed it, and what replaces
it. `exact` marks a drop-in rename: same signature, same values, so the fix is safe. Versions were
checked against JAX's CHANGELOG.md (jax-ml/jax at cec06d116c, https://docs.jax.dev/en/latest/changelog.html)
and against jax 0.10.2 itself; `source` names the changelog entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class ApiChange:
    old: str  # qualified name (a module entry also covers everything under it)
    deprecated_in: str | None  # JAX version whose changelog deprecates it
    removed_in: str | None  # JAX version that removed it (None: still runs, with a warning)
    replacement: str | None  # qualified name for renames; None when the message says what to do
    advice: str  # what to write instead, in words
    exact: bool = False  # a drop-in rename: the fix is safe
    replacement_since: str | None = None  # first JAX version that has `replacement`
    fallback: str | None = None  # an exact replacement for projects pinned below `replacement_since`
    keyword: str | None = None  # the entry is a keyword argument of `old`, renamed to `replacement`
    # "name": a qualified name; "keyword"/"call-keyword": a keyword argument of `old`; "with": `with`
    # on a value of `old`; "import": the module path `old` cannot be imported (`import jax.config`),
    # though the attribute of that name may still exist; "attribute": an attribute of every JAX array
    # (`old` is `jax.Array.<attribute>`); "config-option": the option `keyword` of `jax.config.update`;
    # "call-form": a call of `old` in a form it no longer accepts (see `form`).
    kind: Literal["name", "keyword", "call-keyword", "with", "import", "attribute", "config-option", "call-form"] = "name"
    module: bool = False  # `old` is a module: every name under it is covered too
    source: str = ""
    removed_from: str | None = None  # the release that removed it when that is not JAX's ("Flax 0.6.0")
    # The rename is exact only from `exact_since` on in a module that uses one of `inexact_with`
    # (a project pinned older keeps its spelling: no fix there).
    exact_since: str | None = None
    inexact_with: tuple[str, ...] = ()
    form: str = ""  # for "call-form": the form, in words, as the message names it


def _tree(name: str, deprecated_in: str, source: str) -> ApiChange:
    return ApiChange(
        f"jax.tree_{name}", deprecated_in, "0.6.0", f"jax.tree.{name}", f"`jax.tree.{name}`", exact=True,
        replacement_since="0.4.25", fallback=f"jax.tree_util.tree_{name}",
        source=f"{source}; removed in jax 0.6.0 ('From jax: jax.tree_flatten, jax.tree_map, ...'); jax.tree added in 0.4.25",
    )


API_CHANGES: tuple[ApiChange, ...] = (
    _tree("map", "0.4.26", "jax 0.4.26: 'jax.tree_map is deprecated; use jax.tree.map'"),
    _tree("leaves", "0.3.15", "jax 0.3.15: 'jax.tree_leaves is deprecated in favor of jax.tree_util.tree_leaves'"),
    _tree("flatten", "0.3.15", "jax 0.3.15: 'jax.tree_flatten is deprecated'"),
    _tree("unflatten", "0.3.15", "jax 0.3.15: 'jax.tree_unflatten is deprecated'"),
    _tree("structure", "0.3.15", "jax 0.3.15: 'jax.tree_structure is deprecated'"),
    _tree("transpose", "0.3.15", "jax 0.3.15: 'jax.tree_transpose is deprecated'"),
    ApiChange("jax.treedef_is_leaf", "0.3.15", "0.6.0", "jax.tree_util.treedef_is_leaf", "`jax.tree_util.treedef_is_leaf`",
              exact=True, replacement_since="0.1.0", source="jax 0.6.0: removed from `jax`"),
    ApiChange("jax.tree_multimap", "0.3.5", "0.3.16", "jax.tree_util.tree_map", "`jax.tree_util.tree_map`", exact=True,
              replacement_since="0.2.15", source="jax 0.3.16: 'tree_multimap has been removed ... tree_map is a direct replacement'"),
    ApiChange("jax.tree_util.tree_multimap", "0.3.5", "0.3.16", "jax.tree_util.tree_map", "`jax.tree_util.tree_map`", exact=True,
              replacement_since="0.2.15", source="jax 0.3.16: 'tree_multimap has been removed ... tree_map is a direct replacement'"),
    ApiChange("jax.xla_computation", "0.4.30", "0.4.34", None,
              "`jax.jit(f).lower(*args).compiler_ir('hlo')` (the AOT API)",
              source="jax 0.4.34: 'jax.xla_computation is deleted ... jax.jit(fn).lower(*args, **kwargs).compiler_ir(\"hlo\")'"),
    ApiChange("jax.partial", "0.2.21", "0.2.21", "functools.partial", "`functools.partial`", exact=True, replacement_since="0.1.0",
              source="jax 0.2.21: 'jax.partial ... accidental exports that have now been removed. Use functools.partial'"),
    ApiChange("jax.lax.partial", "0.2.21", "0.2.21", "functools.partial", "`functools.partial`", exact=True, replacement_since="0.1.0",
              source="jax 0.2.21: 'jax.partial, and jax.lax.partial were accidental exports'"),
    ApiChange("jax.api", "0.2.21", "0.2.21", "jax", "the same functions from `jax`",
              module=True, source="jax 0.2.21: 'jax.api has been removed ... use the functions in jax.*'"),
    ApiChange("jax.ops.index_update", "0.2.22", "0.3.2", None, "`x.at[idx].set(y)`",
              source="jax 0.3.2: 'jax.ops.index_update, jax.ops.index_add ... have been removed. Please use the .at property'"),
    ApiChange("jax.ops.index_add", "0.2.22", "0.3.2", None, "`x.at[idx].add(y)`", source="jax 0.3.2"),
    ApiChange("jax.ops.index_mul", "0.2.22", "0.3.2", None, "`x.at[idx].multiply(y)`", source="jax 0.3.2"),
    ApiChange("jax.ops.index_min", "0.2.22", "0.3.2", None, "`x.at[idx].min(y)`", source="jax 0.3.2"),
    ApiChange("jax.ops.index_max", "0.2.22", "0.3.2", None, "`x.at[idx].max(y)`", source="jax 0.3.2"),
    ApiChange("jax.ops.index", "0.2.22", "0.3.2", None, "plain indexing with `x.at[...]`", source="jax 0.3.2"),
    ApiChange("jax.numpy.DeviceArray", "0.4.7", "0.4.14", "jax.Array", "`jax.Array`", exact=True, replacement_since="0.4.1",
              source="jax 0.4.7: 'The type jax.numpy.DeviceArray is deprecated. Use jax.Array'; removed in 0.4.14"),
    ApiChange("jax.interpreters.xla.DeviceArray", "0.4.1", "0.4.11", "jax.Array", "`jax.Array`", exact=True, replacement_since="0.4.1",
              source="jax 0.4.11: 'jax.interpreters.xla.DeviceArray: use jax.Array'"),
    ApiChange("jax.interpreters.pxla.ShardedDeviceArray", "0.4.7", "0.4.14", "jax.Array", "`jax.Array`", exact=True,
              replacement_since="0.4.1", source="jax 0.4.14: 'jax.interpreters.pxla.ShardedDeviceArray: use jax.Array'"),
    ApiChange("jax.experimental.host_callback", "0.4.26", "0.8.0", None,
              "`jax.debug.callback`, `jax.pure_callback` or `jax.experimental.io_callback`",
              module=True, source="jax 0.4.26: 'The jax.experimental.host_callback module is deprecated'; jax 0.8.0: module removed"),
    ApiChange("jax.random.KeyArray", "0.4.16", "0.4.24", None,
              "`jax.Array` for annotations (`jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key)` to test a typed key)",
              source="JEP 9263 (jax 0.4.16) deprecates it: 'jax.random.KeyArray is deprecated. Use jax.Array for annotations'; "
                     "absent from jax/random.py from jax 0.4.24 (checked in the 0.4.23 and 0.4.24 wheels)"),
    ApiChange("jax.random.PRNGKeyArray", "0.4.16", "0.4.24", None,
              "`jax.Array` for annotations (`jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key)` to test a typed key)",
              source="jax 0.4.23's jax/random.py: 'jax.random.PRNGKeyArray is deprecated. Use jax.Array for annotations'; "
                     "absent from jax 0.4.24"),
    ApiChange("jax.sharding.PositionalSharding", "0.6.0", "0.7.0", None,
              "`jax.sharding.NamedSharding` over a `Mesh`",
              source="jax 0.7.0's jax/sharding.py: 'jax.sharding.PositionalSharding was deprecated in JAX v0.6.0 and removed in JAX v0.7.0'"),
    ApiChange("jax.tools.colab_tpu", "0.4.7", "0.10.0", None,
              "no set-up at all (Colab's TPUs are TPU VMs, which JAX uses directly): delete the import and the `setup_tpu()` call",
              module=True, source="jax 0.4.7's jax/tools/colab_tpu.py: setup_tpu() 'Returns an error. Do not use.' (raises "
                                  "RuntimeError: 'As of JAX 0.4.0, JAX only supports TPU VMs'); the module is absent from the "
                                  "jax 0.10.0 wheel (present in 0.9.1; checked in the wheels)"),
    ApiChange("jax.experimental.maps", "0.4.26", "0.4.31", None, "`jax.shard_map` (or `jax.vmap` with `spmd_axis_name`)",
              module=True, source="jax 0.4.26: 'jax.experimental.maps ... deprecated'; jax 0.4.31: 'xmap has been deleted'"),
    ApiChange("jax.experimental.optimizers", "0.2.25", "0.3.16", "jax.example_libraries.optimizers",
              "`jax.example_libraries.optimizers` (or optax)", exact=True, replacement_since="0.2.25",
              module=True, source="jax 0.3.16: 'Removed jax.experimental.optimizers; it has long been a deprecated alias of jax.example_libraries.optimizers'"),
    ApiChange("jax.experimental.stax", "0.2.25", "0.3.16", "jax.example_libraries.stax", "`jax.example_libraries.stax`",
              exact=True, replacement_since="0.2.25", module=True, source="jax 0.3.16: 'Removed jax.experimental.stax'"),
    ApiChange("jax.device_put_replicated", "0.8.1", "0.10.0", None,
              "`jax.device_put` with a sharding (see https://docs.jax.dev/en/latest/migrate_pmap.html#drop-in-replacements)",
              source="jax 0.10.0: 'jax.device_put_sharded and jax.device_put_replicated have been removed'"),
    ApiChange("jax.device_put_sharded", "0.8.1", "0.10.0", None,
              "`jax.device_put` with a sharding (see https://docs.jax.dev/en/latest/migrate_pmap.html#drop-in-replacements)",
              source="jax 0.10.0: 'jax.device_put_sharded and jax.device_put_replicated have been removed'"),
    ApiChange("jax.config.config", "0.4.20", "0.4.25", "jax.config", "`from jax import config` (`jax.config`)", exact=True,
              replacement_since="0.2.0",
              source="jax/config.py (2023-10-27): 'Accessing jax.config via the jax.config submodule is deprecated'; "
                     "`from jax.config import config` raises ImportError from jax 0.4.25 (lgrcia/prose#177, ami-iit/jaxsim#92); "
                     "no jax.config module in jax 0.10.2"),
    ApiChange("jax.experimental.enable_x64", "0.8.0", "0.9.0", None, "`jax.enable_x64(True)`", replacement_since="0.8.0",
              source="jax 0.8.0: 'jax.experimental.enable_x64 ... deprecated in favor of jax.enable_x64'; removed in 0.9.0 (commit 722b18a9)"),
    ApiChange("jax.experimental.disable_x64", "0.8.0", "0.9.0", None, "`jax.enable_x64(False)`", replacement_since="0.8.0",
              source="jax 0.8.0: 'jax.experimental.disable_x64 ... deprecated'; removed in 0.9.0 (commit 722b18a9)"),
    ApiChange("jax.clear_backends", "0.4.26", "0.4.36", "jax.extend.backend.clear_backends",
              "`jax.extend.backend.clear_backends` (or `jax.clear_caches` to drop only compilation caches)", exact=True,
              replacement_since="0.4.26",
              source="jax 0.4.26: 'jax.clear_backends is deprecated ... use jax.clear_caches ... or jax.extend.backend.clear_backends'; removed in 0.4.36"),
    ApiChange("jax.numpy.fix", "0.9.0", "0.10.0", "jax.numpy.trunc", "`jnp.trunc`", exact=True, replacement_since="0.1.0",
              source="jax 0.9.0: 'jax.numpy.fix is deprecated ... jax.numpy.trunc is a drop-in replacement'; AttributeError on 0.10"),
    ApiChange("jax.experimental.pjit.pjit", "0.4.9", "0.4.14", "in_shardings", "`in_shardings=`", exact=True, keyword="in_axis_resources",
              kind="keyword", replacement_since="0.4.1",
              source="jax 0.4.14: 'in_axis_resources and out_axis_resources have been deleted from pjit ... a safe and trivial name replacement'"),
    ApiChange("jax.experimental.pjit.pjit", "0.4.9", "0.4.14", "out_shardings", "`out_shardings=`", exact=True, keyword="out_axis_resources",
              kind="keyword", replacement_since="0.4.1", source="jax 0.4.14"),
    ApiChange("jax.lax.tie_in", "0.4.24", "0.4.29", None, "`y` in place of `tie_in(x, y)` (a no-op since jax 0.2.0)",
              source="jax 0.4.24: 'jax.lax.tie_in is deprecated: it has been a no-op since JAX v0.2.0'; jax 0.4.29: removed from jax.lax"),
    # Flax versions are not JAX versions: flax 0.6.0 deleted `flax/optim` and is the first flax to require
    # jax>=0.3.16 (its setup.py), so a project on jax 0.3.16 or newer with a current flax has no flax.optim.
    ApiChange("flax.optim", "0.3.16", "0.3.16", None, "optax (`optax.adam(...)`, with the state in `flax.training.train_state.TrainState`)",
              module=True, removed_from="Flax 0.6.0",
              source="flax 0.6.0 removed flax.optim ('the Flax optimizers have been removed in v0.6.0', Optax update guide); flax 0.6.0 requires jax>=0.3.16"),
    # Dynamic loss scaling outlived flax.optim: it moved, it was not replaced by optax.
    ApiChange("flax.optim.DynamicScale", "0.3.16", "0.3.16", None,
              "`flax.training.dynamic_scale.DynamicScale` (it wraps any loss function: `value_and_grad` returns `(dynamic_scale, is_finite, aux, grads)`)",
              removed_from="Flax 0.6.0",
              source="flax 0.6.0 removed flax.optim; flax/training/dynamic_scale.py holds DynamicScale in current flax"),
    ApiChange("flax.optim.dynamic_scale", "0.3.16", "0.3.16", None, "`flax.training.dynamic_scale`", module=True,
              removed_from="Flax 0.6.0", source="flax 0.6.0 removed flax.optim; flax.training.dynamic_scale is its successor"),
    # Modules and names gone from current JAX (each checked on jax 0.10.2 unless the source says otherwise).
    ApiChange("jax.xla", "0.4.1", "0.4.14", None, "`jax.interpreters.xla` (for `DeviceArray`: `jax.Array`)", module=True,
              source="jax 0.4.14: 'The following APIs have been removed after previous deprecation: ... jax.xla: use jax.interpreters.xla'"),
    ApiChange("jax.pxla", "0.4.1", "0.4.14", None, "`jax.interpreters.pxla` (for `ShardedDeviceArray`: `jax.Array`)", module=True,
              source="jax 0.4.14: '... jax.pxla: use jax.interpreters.pxla'"),
    ApiChange("jax.xla.DeviceArray", "0.4.1", "0.4.14", None, "`jax.Array`",
              source="jax 0.4.14 removed the `jax.xla` alias; jax 0.4.11: 'jax.interpreters.xla.DeviceArray: use jax.Array'"),
    ApiChange("jax.pxla.ShardedDeviceArray", "0.4.1", "0.4.14", None, "`jax.Array`",
              source="jax 0.4.14: 'jax.pxla: use jax.interpreters.pxla', 'jax.interpreters.pxla.ShardedDeviceArray: use jax.Array'"),
    ApiChange("jax.xla.Device", "0.4.4", "0.4.14", "jax.Device", "`jax.Device`", exact=True, replacement_since="0.4.1",
              source="jax 0.4.4: 'jax.xla.Device and jax.interpreters.xla.Device: use jax.Device' (deprecated); jax 0.4.14 removed jax.xla"),
    ApiChange("jaxlib.xla_extension", "0.6.0", "0.6.1", None,
              "the public API: `jax.Array` for `DeviceArray`/`ArrayImpl`, `jax.errors.JaxRuntimeError` for `XlaRuntimeError`",
              module=True, source="jax 0.6.0: 'All APIs in jax.lib.xla_extension are now deprecated'; jax commit 7877bec782 "
                                  "('Rename xla_extension to _jax', first in jax-v0.6.1): no jaxlib/xla_extension from 0.6.1"),
    ApiChange("jaxlib.xla_extension.DeviceArray", "0.4.1", "0.6.1", None, "`jax.Array` (every JAX array is an instance)",
              source="DeviceArray was replaced by jax.Array (default since jax 0.4.1); jaxlib.xla_extension is gone from 0.6.1 (commit 7877bec782)"),
    ApiChange("jaxlib.xla_extension.ArrayImpl", "0.6.0", "0.6.1", None, "`jax.Array` (every JAX array is an instance)",
              source="jax 0.6.0: 'From jax.lib.xla_extension: ArrayImpl ... removed'; jaxlib.xla_extension is gone from 0.6.1 (commit 7877bec782)"),
    ApiChange("jax.lib.xla_bridge", "0.4.32", "0.8.0", None,
              "`jax.default_backend()`, `jax.devices()`, or `jax.extend.backend` (`get_backend`, `default_backend`)", module=True,
              source="jax 0.4.32: 'jax.lib.xla_bridge.get_backend: use jax.extend.backend.get_backend'; jax 0.8.0: 'The deprecated "
                     "functions in jax.lib.xla_bridge, jax.lib.xla_client, and jax.lib.xla_extension were removed'; no module in 0.10.2"),
    ApiChange("jax.lib.xla_client", "0.4.36", "0.8.0", None, "the public `jax` API (`jax.Device`, `jax.stages`, `jax.extend`)", module=True,
              source="jax 0.4.36: 'jax.lib.xla_client.ArrayImpl ... deprecated'; jax 0.8.0: 'The deprecated functions in ... jax.lib.xla_client ... were removed'; no module in 0.10.2"),
    ApiChange("jax.lib.xla_extension", "0.6.0", "0.8.0", None, "`jax.Array`, `jax.errors.JaxRuntimeError`", module=True,
              source="jax 0.6.0: 'All APIs in jax.lib.xla_extension are now deprecated'; jax 0.8.0: removed"),
    ApiChange("jax.util", "0.6.0", "0.8.0", None, "`functools`/`itertools` equivalents or your own helper (`safe_map` -> `map`, `unzip2` -> `zip(*pairs)`)",
              module=True, source="jax 0.6.0: 'The following internal APIs in jax.util are deprecated'; jax 0.8.0: 'The jax.util, "
                                  "jax.extend.ffi, and jax.experimental.host_callback modules have been removed'"),
    ApiChange("jax.linear_util", "0.4.16", "0.4.24", "jax.extend.linear_util", "`jax.extend.linear_util`", module=True,
              source="jax 0.4.16: 'The internal submodule path jax.linear_util has been deprecated. Use jax.extend.linear_util'; "
                     "jax 0.4.24 removed 'The jax.linear_util submodule and all its contents'"),
    ApiChange("jax.experimental.optix", "0.2.7", "0.2.7", "optax", "optax (`import optax`: `optax.adam(...)`, `optax.chain(...)`)",
              module=True, source="jax 0.2.7: 'jax.experimental.optix has been deleted, in favor of the standalone optax Python package'"),
    ApiChange("jax.experimental.loops", "0.3.6", "0.3.16", None, "`jax.lax.fori_loop`/`scan`/`while_loop` (see jax-ml/jax#10278)",
              module=True, source="jax 0.3.6: 'jax.experimental.loops is being deprecated'; jax 0.3.16: 'jax.experimental.loops has been removed'"),
    ApiChange("jax.experimental.PartitionSpec", "0.4.1", "0.4.11", "jax.sharding.PartitionSpec", "`jax.sharding.PartitionSpec`",
              exact=True, replacement_since="0.4.1",
              source="jax 0.4.1: 'jax.experimental.maps.Mesh and jax.experimental.PartitionSpec are deprecated'; jax 0.4.11: "
                     "'jax.experimental.PartitionSpec: use jax.sharding.PartitionSpec' (removed)"),
    ApiChange("jax.experimental.compilation_cache.compilation_cache.initialize_cache", "0.4.24", "0.8.0", None,
              "`jax.config.update(\"jax_compilation_cache_dir\", path)` (or `compilation_cache.set_cache_dir(path)`)",
              source="jax 0.8.0: 'from jax.experimental.compilation_cache, the deprecated symbols is_initialized and initialize_cache "
                     "were removed'; jax 0.10.2 has only reset_cache and set_cache_dir there"),
    ApiChange("jax.core.take_current_trace", "0.8.2", "0.10.0", "jax.extend.core.take_current_trace", "`jax.extend.core.take_current_trace`",
              source="jax 0.8.2: 'From jax.core a number of symbols are newly deprecated including ... take_current_trace'; jax 0.10.2's "
                     "AttributeError: 'deprecated in JAX v0.8.2 and removed in JAX v0.10.0. Use jax.extend.core.take_current_trace'"),
    ApiChange("jax.random.shuffle", "0.1.66", "0.4.31", None, "`jax.random.permutation(key, x, axis=..., independent=True)` (it returns the result)",
              source="jax commit d8d71407dc (May 2020, first in jaxlib 0.1.46 / jax 0.1.66): 'Deprecate random.shuffle()'; jax 0.4.31: "
                     "'The previously-deprecated function jax.random.shuffle has been removed'"),
    ApiChange("jax.config.enable_omnistaging", "0.2.12", "0.3.15", None, "delete the call: omnistaging is always on",
              source="jax 0.2.12: 'Omnistaging can no longer be disabled'; jax commit dbae3e5ed1 'Remove long-deprecated omnistaging flag' "
                     "(first in jax-v0.3.15)"),
    ApiChange("jax.config.disable_omnistaging", "0.2.12", "0.3.15", None, "delete the call: omnistaging cannot be disabled",
              source="jax 0.2.12: 'Omnistaging can no longer be disabled'; removed with the flag in jax 0.3.15 (commit dbae3e5ed1)"),
    ApiChange("jax.config.FLAGS", "0.4.14", "0.4.20", None, "`jax.config.update(\"jax_...\", value)` (and `jax_platforms` for the backend)",
              source="jax commit fd3a8b2cc6 (first in jax-v0.4.20) deleted `self.FLAGS` from jax's Config; git history only, no changelog line"),
    ApiChange("jax.config", "0.4.25", "0.4.29", "jax.config", "`import jax` and `jax.config` (or `from jax import config`)", kind="import",
              source="jax 0.4.25: 'Importing the jax.config submodule via import jax.config is deprecated'; jax 0.4.29: 'The deprecated "
                     "jax.config submodule has been removed'"),
    # Config options `jax.config.update` no longer knows (AttributeError: Unrecognized config option); each checked on jax 0.10.2.
    *(ApiChange("jax.config.update", deprecated, removed, None, advice, keyword=option, kind="config-option", source=source)
      for option, deprecated, removed, advice, source in (
        ("jax_array", "0.4.1", "0.4.14", "delete the call: jax.Array is always on",
         "jax 0.4.14: 'The deprecated config options jax_array and jax_jit_pjit_api_merge, which did nothing, have been removed'"),
        ("jax_jit_pjit_api_merge", "0.4.1", "0.4.14", "delete the call: the merge is always on", "jax 0.4.14 (as jax_array)"),
        ("jax_parallel_functions_output_gda", "0.4.1", "0.4.26", "delete the call: outputs are always jax.Array",
         "jax 0.4.26: 'The deprecated flag jax_parallel_functions_output_gda has been removed'"),
        ("jax_coordination_service", "0.4.16", "0.4.16", "delete the call: the coordination service is always on",
         "jax 0.4.16: 'The option --jax_coordination_service has been removed'"),
        ("jax_eager_pmap", "0.6.0", "0.6.0", "delete the call", "jax 0.6.0: 'Removed the config.jax_eager_pmap config option'"),
        ("jax_data_dependent_tracing_fallback", "0.6.0", "0.6.0", "delete the call",
         "jax 0.6.0: 'Removed the config.jax_data_dependent_tracing_fallback config option'"),
        ("jax_cpu_enable_gloo_collectives", "0.4.27", "0.8.0", "`jax.config.update(\"jax_cpu_collectives_implementation\", \"gloo\")`",
         "jax 0.4.27: deprecated; jax 0.8.0: 'The option jax_cpu_enable_gloo_collectives has been removed'"),
        ("jax_pmap_no_rank_reduction", "0.9.0", "0.9.0", "delete the call", "jax 0.9.0: 'The jax_pmap_no_rank_reduction config state has been removed'"),
        ("jax_pmap_shmap_merge", "0.9.0", "0.10.0", "delete the call: jax.pmap is always built on jax.jit and jax.shard_map",
         "jax 0.10.0: 'The config state jax_pmap_shmap_merge has been removed'"),
      )),
    # Attributes of JAX arrays that jax.Array no longer has (checked on an array of jax 0.10.2).
    ApiChange("jax.Array.device_buffer", "0.4.22", "0.4.27", None, "`x.addressable_data(0)` (or `x.devices()` for the device)", kind="attribute",
              source="jax 0.4.22: 'The device_buffer and device_buffers properties of JAX arrays are deprecated'; jax 0.4.27: "
                     "'The jax.Array.device_buffer and jax.Array.device_buffers methods have been removed'"),
    ApiChange("jax.Array.device_buffers", "0.4.22", "0.4.27", None, "`[shard.data for shard in x.addressable_shards]`", kind="attribute",
              source="jax 0.4.22 deprecated, jax 0.4.27 removed (as device_buffer)"),
    ApiChange("jax.Array.to_py", "0.3.17", "0.4.1", None, "`np.asarray(x)`", kind="attribute",
              source="jax 0.3.17: 'DeviceArray.to_py() has been deprecated. Use np.asarray(x) instead'; jax.Array (the array type "
                     "from jax 0.4.1) has no to_py (checked on jax 0.10.2)"),
    ApiChange("jax.lax.cond", "0.2.0", "0.4.14", None,
              "`lax.cond(pred, true_fun, false_fun, *operands)` (each function takes the operands)", kind="call-form",
              form="the five-argument operand form `lax.cond(pred, true_operand, true_fun, false_operand, false_fun)`",
              source="jax 0.4.14: 'calls to jax.lax.cond with five arguments will always resolve to the common operands cond behavior'; "
                     "jax 0.10.2's signature is cond(pred, true_fun, false_fun, *operands)"),
    # Optax versions are not JAX versions: optax 0.1.8 (Aug 2023, the month of jax 0.4.15) removed its legacy aliases.
    ApiChange("optax.additive_weight_decay", "0.4.15", "0.4.15", "optax.add_decayed_weights", "`optax.add_decayed_weights`",
              removed_from="Optax 0.1.8",
              source="optax commit 6b61e6af 'Remove legacy symbols' (first in optax v0.1.8) dropped additive_weight_decay and "
                     "AdditiveWeightDecayState from optax/__init__.py"),
    # Still running on jax 0.10.2, with a DeprecationWarning.
    ApiChange("jax.experimental.shard_map.shard_map", "0.8.0", None, "jax.shard_map",
              "`jax.shard_map` (mesh, in_specs and out_specs are keyword-only there; `check_rep` became `check_vma`)",
              replacement_since="0.6.1",
              source="jax 0.8.0: 'jax.experimental.shard_map.shard_map is deprecated; going forward use jax.shard_map'"),
    ApiChange("jax.experimental.pjit.pjit", "0.8.0", None, "jax.jit", "`jax.jit`", exact=True, replacement_since="0.4.1",
              # Raw PartitionSpecs as shardings take their mesh from a `with mesh:` block, which pjit
              # read and jax.jit of the 0.4 series did not (jax/_src/pjit.py); both agree on the jax
              # these tests run (0.10.2). Below that, pass NamedSharding(mesh, spec) first.
              exact_since="0.10.2",
              inexact_with=("jax.sharding.PartitionSpec", "jax.experimental.PartitionSpec", "jax.experimental.pjit.PartitionSpec", "jax.P"),
              source="jax 0.8.0: 'jax.experimental.pjit.pjit is deprecated; going forward use jax.jit'"),
    ApiChange("jax.host_id", "0.2.13", None, "jax.process_index", "`jax.process_index`", exact=True, replacement_since="0.2.13",
              source="jax 0.2.13: 'host_id --> jax.process_index ... the aliases will eventually be removed'"),
    ApiChange("jax.host_count", "0.2.13", None, "jax.process_count", "`jax.process_count`", exact=True, replacement_since="0.2.13",
              source="jax 0.2.13: 'host_count --> jax.process_count'"),
    ApiChange("jax.host_ids", "0.2.13", None, None, "`range(jax.process_count())`", source="jax 0.2.13: 'host_ids --> range(jax.process_count())'"),
    ApiChange("jax.jit", "0.4.2", None, None, "`jax.device_put(x, device)` on the inputs", keyword="device", kind="call-keyword",
              source="jax/_src/pjit.py (since 0.4.2): 'backend and device argument on jit is deprecated'"),
    ApiChange("jax.jit", "0.4.2", None, None, "`jax.device_put(x, jax.local_devices(backend=...)[0])` on the inputs",
              keyword="backend", kind="call-keyword",
              source="jax/_src/pjit.py (since 0.4.2): 'backend and device argument on jit is deprecated'"),
    ApiChange("jax.sharding.Mesh", "0.10.1", None, "jax.set_mesh", "`with jax.set_mesh(mesh):`", kind="with", replacement_since="0.7.1",
              source="jax 0.10.1: 'with mesh: context manager has been deprecated. Please use with jax.set_mesh(mesh):'"),
)


def parse_version(text: str | None) -> tuple[int, ...] | None:
    if not text:
        return None
    try:
        return tuple(int(part) for part in text.split("."))
    except ValueError:
        return None


def status_at(change: ApiChange, target: str | None) -> str | None:
    """'removed', 'deprecated' or None (fine) for a project that targets JAX `target` (None: the newest)."""
    version = parse_version(target)
    removed = parse_version(change.removed_in)
    deprecated = parse_version(change.deprecated_in)
    if version is None:
        return "removed" if removed is not None else "deprecated"
    if removed is not None and version >= removed:
        return "removed"
    if deprecated is not None and version >= deprecated:
        return "deprecated"
    return None


def replacement_at(change: ApiChange, target: str | None) -> tuple[str | None, bool]:
    """The replacement a project on JAX `target` can use, and whether it is exact."""
    version = parse_version(target)
    since = parse_version(change.replacement_since)
    if version is None or since is None or version >= since:
        return change.replacement, change.exact
    if change.fallback is not None:
        return change.fallback, True
    return None, False


def name_entries() -> dict[str, ApiChange]:
    """Name entries by qualified name; where a name has several (pjit), the one without a removal."""
    entries: dict[str, ApiChange] = {}
    for change in API_CHANGES:
        if change.kind == "name":
            entries[change.old] = change
    return entries


NAME_ENTRIES = name_entries()
KEYWORD_ENTRIES: dict[tuple[str, str], ApiChange] = {
    (change.old, change.keyword): change for change in API_CHANGES if change.kind in ("keyword", "call-keyword") and change.keyword
}
WITH_ENTRIES = {change.old: change for change in API_CHANGES if change.kind == "with"}
IMPORT_ENTRIES = {change.old: change for change in API_CHANGES if change.kind == "import"}
CONFIG_OPTION_ENTRIES = {change.keyword: change for change in API_CHANGES if change.kind == "config-option" and change.keyword}
ARRAY_ATTRIBUTE_ENTRIES = {change.old.rpartition(".")[2]: change for change in API_CHANGES if change.kind == "attribute"}
CALL_FORM_ENTRIES = {change.old: change for change in API_CHANGES if change.kind == "call-form"}


def lookup(qualified: str) -> ApiChange | None:
    """The entry for `qualified` or for the module that contains it."""
    if qualified in NAME_ENTRIES:
        return NAME_ENTRIES[qualified]
    prefix = qualified
    while "." in prefix:
        prefix = prefix.rpartition(".")[0]
        change = NAME_ENTRIES.get(prefix)
        if change is not None and change.module:
            return change  # a removed module: `jax.experimental.host_callback.id_tap`
    return None


def lookup_through(qualified: str) -> tuple[ApiChange, str] | None:
    """The entry an attribute chain reaches, and the name it matched: `lookup`, or a name entry the
    chain passes through (`config.FLAGS.jax_xla_backend` reaches `jax.config.FLAGS`)."""
    change = lookup(qualified)
    if change is not None:
        return change, qualified
    prefix = qualified
    while "." in prefix:
        prefix = prefix.rpartition(".")[0]
        change = NAME_ENTRIES.get(prefix)
        if change is not None:
            return change, prefix
    return None
