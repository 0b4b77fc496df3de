"""Loops paced by drawing: an iteration that draws a figure or a frame on the host.

Drawing is host work of milliseconds a call: matplotlib builds artists and renders them (a line
plot, an image, a saved figure: one to tens of milliseconds), a viewer window renders a frame
(MuJoCo's viewer, pygame, OpenCV, at a display's 30-60 frames a second) and a window the loop
keeps open runs as long as a person watches. Such a loop is paced by its drawing, not by its
device work: a few eager dispatches beside it (tens of microseconds each), a network's forward
pass choosing the next action shown, or the read of a device value the drawing takes to the host
anyway cost a small share of an iteration, and the loop cannot become a `lax.fori_loop` (a figure
or a window is not traceable).

* `draws(call, model, scope)`: the call draws: a matplotlib call (`plt.plot`, `plt.pause`,
  `fig.savefig` and the axes' drawing methods, `ax.imshow`, in a module that imports matplotlib),
  a display library's (`pygame.display.flip`, `cv2.imshow`, `mediapy.show_video`), a frame rendered by
  an environment or a viewer (`env.render()`, `viewer.sync()`, `renderer.render(state)`, an animation of states, `env.animate(states)`), or a call
  of a function of the module, or of another project module (semantic/foreign_work.py), that draws
  anywhere in its body (`plot_panel(ax, sample)`, up to three calls down: a plotting helper is one
  wherever it draws).
* `draws_every_iteration(loop, model)`: the first call at the loop's own level that runs on every
  iteration (not under a branch) and draws, or the loop's exit that asks a window whether it is
  still open (`while viewer.is_running():`, `while not renderer.is_quit_requested():`, `if not
  render(state): break` where the renderer answers whether its window is open): an animation, a
  viewer or a figure per pass. None otherwise (a training loop that plots every 100 steps draws
  under a branch: its steps are not paced by the plot).
* `recorded_for_display(loop, model)`: the call after the loop that shows the trajectory the loop
  records on every iteration (the state it carries, appended to a list made before it, then handed to
  a drawing call or a video writer: `HTML(html.render(sys, rollout))`, `media.show_video(frames)`):
  a rollout whose output is every state it steps through.
"""

from __future__ import annotations

import ast

from jaxlint.semantic import foreign_work
from jaxlint.semantic.syntax import terminal_name
from jaxlint.semantic.through_callees import call_answers

# Libraries whose every call shows or draws on the host.
_DISPLAY_PREFIXES = (
    "matplotlib.", "pygame.display.", "pygame.draw.", "mediapy.show", "mujoco.viewer.", "IPython.display.",
    "seaborn.", "plotly.", "cv2.imshow", "cv2.waitKey",
)
# Drawing methods of matplotlib's axes and figures (`ax.plot(x, y)`, `fig.savefig(path)`): a
# drawing call where the module imports matplotlib.
_AXES_METHODS = frozenset({
    "plot", "scatter", "imshow", "matshow", "contour", "contourf", "pcolormesh", "pcolor", "fill_between",
    "hist", "bar", "barh", "errorbar", "quiver", "streamplot", "tricontourf", "plot_surface", "set_data",
    "savefig", "add_patch", "add_collection", "semilogy", "semilogx", "loglog", "axhline", "axvline",
    "violinplot", "boxplot", "stairs", "hexbin", "set_title", "set_xlabel", "set_ylabel", "colorbar", "legend",
})
# A frame rendered or pushed to a window by an object the loop drives.
_FRAME_METHODS = frozenset({"render", "sync", "flip", "animate"})
_FRAME_OWNERS = ("env", "viewer", "renderer", "window", "screen", "display", "canvas")
# Asked of a window: is it still open? A loop exiting on it runs while a person watches.
_WINDOW_OPEN = frozenset({"is_running", "is_quit_requested", "should_close", "window_should_close", "is_open", "isOpen", "is_alive"})


def draws(call: ast.Call, model, scope=None, depth: int = 0) -> bool:
    """The call draws a figure or a frame on the host (see the module docstring)."""
    return call_answers(call, model, scope, depth, _draws_itself, draws_in, foreign_work.imported_drawing)


def _draws_itself(call: ast.Call, model, scope) -> bool | None:
    """True for a drawing API's call; None where the function the call runs decides."""
    qualified = model.qualified_name(call.func)
    if qualified is not None and qualified.startswith(_DISPLAY_PREFIXES):
        return True
    function = call.func
    if isinstance(function, ast.Attribute):
        if function.attr in _AXES_METHODS and _imports_matplotlib(model) and not _array_namespace(qualified):
            return True
        if function.attr in _FRAME_METHODS and _frame_owner(function.value):
            return True
    return None


def draws_in(scope, model, depth: int = 0) -> bool:
    """The function of `scope` draws somewhere in its body (any branch), itself or through the
    functions of the module it calls."""
    if not isinstance(scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)) or scope.in_traced:
        return False
    cache = model.__dict__.setdefault("_draws_in", {})
    key = id(scope.node)
    if key in cache:
        return cache[key]
    cache[key] = False  # (recursion: not while being worked out)
    found = any(draws(call, model, scope, depth) for call in scope.calls)
    cache[key] = found
    return found


def draws_every_iteration(loop: ast.AST, model) -> ast.AST | None:
    """The first call on every iteration of `loop` that draws, or the exit test that asks a window
    whether it is still open; None otherwise."""
    from jaxlint.semantic.training_loops import loop_body, under_loop_branch

    if isinstance(loop, ast.While) and _asks_window_open(loop.test):
        return loop.test
    scope = model.scope_for(loop)
    for node in loop_body(loop):
        if isinstance(node, ast.If) and any(isinstance(inner, ast.Break) for inner in node.body) and _asks_window_open(node.test):
            return node.test
        if isinstance(node, ast.Call) and not under_loop_branch(node, loop, try_blocks=True) and draws(node, model, scope):
            return node
    return None


def _asks_window_open(test: ast.expr) -> bool:
    for node in ast.walk(test):
        if not isinstance(node, ast.Call):
            continue
        name = terminal_name(node.func)
        if name in _WINDOW_OPEN:
            return True
        # (`if not render(state, params): break`: a renderer that answers whether its window is open)
        if name is not None and "render" in name.lower() and isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and test.operand is node:
            return True
    return False


def _frame_owner(node: ast.expr) -> bool:
    name = terminal_name(node)
    return name is not None and any(owner in name.lower() for owner in _FRAME_OWNERS)


def _array_namespace(qualified: str | None) -> bool:
    return qualified is not None and qualified.startswith(("jax.", "numpy.", "jnp.", "np."))


def _imports_matplotlib(model) -> bool:
    cache = model.__dict__
    if "_imports_matplotlib" not in cache:
        found = False
        for node in model.import_nodes:
            if isinstance(node, ast.Import) and any(alias.name.split(".")[0] == "matplotlib" for alias in node.names):
                found = True
                break
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "matplotlib":
                found = True
                break
        cache["_imports_matplotlib"] = found
    return cache["_imports_matplotlib"]


# Calls that write a recorded trajectory out as a video or an animation: a display of every frame.
_FRAME_WRITERS = frozenset({
    "imageio.mimsave", "imageio.mimwrite", "imageio.v2.mimsave", "imageio.v2.mimwrite", "imageio.v3.imwrite",
    "mediapy.write_video", "mediapy.show_video", "mediapy.show_images",
})


def recorded_for_display(loop: ast.AST, model) -> ast.Call | None:
    """The call after `loop` that shows the trajectory the loop records, or None. The loop appends, on
    every iteration (at its own level, not under a branch), the state it carries or a part of it to a
    list made before it (`rollout.append(state.pipeline_state)` where the iteration rebinds `state =
    step(state, action)`), and a statement after the loop, in the same block, hands that list to a
    drawing call (`draws`: an HTML render shown in the notebook, `HTML(html.render(sys, rollout))`; a
    figure; a frame rendered by the environment) or to a video writer (`imageio.mimsave`,
    `mediapy.write_video`), inside its arguments or through a name bound to an expression of it after
    the loop (`frames = [env.render(s) for s in rollout]`). Such a loop's output is every state it
    steps through, shown after it: a rollout to render or record."""
    from jaxlint.semantic.flow import rebinds_handed
    from jaxlint.semantic.reaching import statement_list

    found = statement_list(loop)
    if found is None:
        return None
    block, index = found
    carried = set()
    for statement in loop.body:
        value = getattr(statement, "value", None)
        if isinstance(value, ast.Call):
            carried |= rebinds_handed(statement, value)
    if not carried:
        return None
    bound_in_loop = {node.id for node in ast.walk(loop) if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load)}
    recorded: set[str] = set()
    for statement in loop.body:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append"
                and isinstance(call.func.value, ast.Name) and len(call.args) == 1 and not call.keywords):
            continue
        name = call.func.value.id
        if name in bound_in_loop:
            continue
        item = call.args[0]
        while isinstance(item, (ast.Attribute, ast.Subscript)):
            item = item.value
        if isinstance(item, ast.Name) and item.id in carried:
            recorded.add(name)
    if not recorded:
        return None
    scope = model.scope_for(loop)
    holding = set(recorded)  # the recorded lists and the names bound after the loop to expressions of them
    for statement in block[index + 1:]:
        for node in ast.walk(statement):
            if not isinstance(node, ast.Call):
                continue
            handed = {part.id for argument in [*node.args, *(k.value for k in node.keywords)]
                      for part in ast.walk(argument) if isinstance(part, ast.Name)}
            if handed & holding and (model.qualified_name(node.func) in _FRAME_WRITERS or draws(node, model, scope)):
                return node
        if isinstance(statement, ast.Assign) and any(
                isinstance(part, ast.Name) and part.id in holding for part in ast.walk(statement.value)):
            holding |= {target.id for target in statement.targets if isinstance(target, ast.Name)}
    return None
