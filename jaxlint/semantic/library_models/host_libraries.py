"""Library model: host libraries that solve, assemble or write on concrete values.

SciPy's sparse matrices and solvers (`scipy.sparse.csr_matrix`, `scipy.sparse.linalg.spsolve`),
PETSc through petsc4py (`PETSc.Mat`, `PETSc.Vec`, a `PETSc.KSP` solve), AMGX through pyamgx and
meshio's file writers are compiled host code: they take NumPy buffers (a JAX array handed to them is
copied to the host first, waiting for it) and cannot take a tracer, so code that calls them runs
outside any trace. What they do (a sparse factorisation, a Krylov solve, a mesh file written) takes
milliseconds to seconds, far beyond a dispatch. https://docs.scipy.org/doc/scipy/reference/sparse.linalg.html,
https://petsc.org/release/petsc4py/, https://github.com/nschloe/meshio.
"""

_HOST = {"returns": "host", "host_work": True}

NAMESPACES = {
    "scipy.sparse.": _HOST,
    "scipy.sparse.linalg.": _HOST,
    "pyamgx.": _HOST,
}

MODELS = {
    **{f"petsc4py.PETSc.{name}": {"returns": f"object:petsc4py.PETSc.{name}", "host_work": True}
       for name in ("Vec", "Mat", "KSP", "PC", "SNES", "TS", "IS", "DM", "DMDA", "DMPlex", "Viewer", "Options")},
    **{f"pyamgx.{name}": {"returns": f"object:pyamgx.{name}", "host_work": True}
       for name in ("Config", "Resources", "Matrix", "Vector", "Solver")},
    # Type tests do no work: a function may ask them of a JAX array to pick its path.
    **{f"scipy.sparse.{name}": {"returns": "host"}
       for name in ("issparse", "isspmatrix", "isspmatrix_csr", "isspmatrix_csc", "isspmatrix_coo", "is_sparse")},
    "meshio.write": {"returns": "host", "host_work": True},
    "meshio.write_points_cells": {"returns": "host", "host_work": True},
    "meshio.Mesh": {"returns": "object:meshio.Mesh"},
    "meshio.Mesh.write": {"returns": "host", "host_work": True},
}
