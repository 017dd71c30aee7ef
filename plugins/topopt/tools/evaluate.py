"""simulate_design and render_design: a described design evaluated or drawn as a PNG."""

from __future__ import annotations

from pathlib import Path

from workbench.core.tools import ToolContext
from workbench_plugins.topopt import designs, engine
from workbench_plugins.topopt.tools.arguments import RenderArgs, SimulateArgs
from workbench_plugins.topopt.tools.failures import engine_errors
from workbench_plugins.topopt.tools.results import RenderResult, SimulateResult


def _resolve(
    args: SimulateArgs, context: ToolContext, seed: int
) -> tuple[designs.ResolvedDesign, engine.ProblemConfig]:
    with engine_errors():
        given = designs.resolve(
            context, args.design_description, args.problem_type, args.config(), seed
        )
        config = designs.config_of(context, given, args.problem_type, args.problem_config)
        given.design = engine.check_design(given.design, config)
    return given, config


def simulate_design(args: SimulateArgs, context: ToolContext) -> SimulateResult:
    given, config = _resolve(args, context, args.seed)
    with engine_errors():
        objectives = engine.simulate(args.problem_type, config, given.design, args.seed)
        violations = engine.design_violations(args.problem_type, config, given.design)
    values = ", ".join(f"{k}={v:.6g}" for k, v in objectives.items())
    validity = f" It violates: {'; '.join(violations)}" if violations else ""
    return SimulateResult(
        **objectives,
        message=f"Simulated the {given.source} {args.problem_type} design: {values}.{validity}",
        problem_type=args.problem_type,
        design_valid=not violations,
        constraint_violations=violations,
        design_source=given.path or given.source,
        design_sha256=engine.design_sha256(given.design),
        material_usage=float(given.design.mean()),
        design_shape=list(given.design.shape),
    )


def design_path(args: SimulateArgs, context: ToolContext) -> Path | None:
    """The .npy a design description names, if it names a file (the registry's `files`)."""
    return designs.design_file(context, args.design_description)


def render_paths(args: RenderArgs, context: ToolContext) -> tuple[Path, Path]:
    """The design read, and the PNG and .npy written beside it (the registry's `files`)."""
    design_path(args, context)
    png = designs.output_path(context, args.save_path, "design.png")
    if png.suffix.lower() != ".png":
        png = designs.output_path(context, str(png.with_suffix(".png")), "design.png")
    return png, designs.output_path(context, str(png.with_suffix(".npy")), "design.npy")


def render_design(args: RenderArgs, context: ToolContext) -> RenderResult:
    seed = args.seed if args.seed is not None else 0
    png, npy = render_paths(args, context)  # every path confined before anything is written
    given, config = _resolve(args, context, seed)
    engine.render_png(given.design, png, f"{args.problem_type}: {given.source} design")
    designs.write_npy(given.design, npy)
    context.add_artifact(png, kind="topopt.render", meta={"problem_type": args.problem_type})
    designs.store_design(
        context,
        given.design,
        problem_type=args.problem_type,
        role=f"render:{given.source}",
        config=config,
        seed=seed,
        save_path=npy,
    )
    return RenderResult(
        message=f"Rendered the {given.source} {args.problem_type} design to {png}.",
        save_path=str(png),
        npy_path=str(npy),
        design_shape=list(given.design.shape),
        design_type=given.source,
        design_sha256=engine.design_sha256(given.design),
        seed=args.seed,
    )
