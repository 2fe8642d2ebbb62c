"""A multi-threaded .NET Core 3.1 workload driven from Python (pythonnet on the dotnetcore2
runtime from PyPI; no SDK): generic framework code (Array.Sort, Dictionary, List, LINQ)
and a delegate compiled from an expression tree run on thread-pool threads through
Parallel.For, so that the runtime JITs generic code (names with `!0`, `class`, `valuetype`,
`[module]`) on threads other than the main one. DOTNET_PerfMapEnabled=1 makes the runtime
write /tmp/perf-PID.map.

Usage: python dotnet_work.py SECONDS
"""
import pathlib
import sys
import time

import dotnetcore2
from clr_loader import get_coreclr
from pythonnet import set_runtime

root = pathlib.Path(dotnetcore2.__file__).parent / "bin"
cfg = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else "runtimeconfig.json")
cfg.write_text('{"runtimeOptions":{"tfm":"netcoreapp3.1","framework":'
               '{"name":"Microsoft.NETCore.App","version":"3.1.23"}}}')
set_runtime(get_coreclr(runtime_config=str(cfg), dotnet_root=str(root)))

import clr  # noqa: E402,F401
import System  # noqa: E402
from System import Array, Int32, Int64, String, Func, Action  # noqa: E402
from System.Collections.Generic import Dictionary, List  # noqa: E402
from System.Linq import Enumerable  # noqa: E402
from System.Linq.Expressions import Expression, ParameterExpression  # noqa: E402
from System.Threading.Tasks import Parallel  # noqa: E402

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 1.5


def compiled_body():
    """Action<int>: for (k = 0; k < 20000; k++) acc = acc * 31 + (i ^ k); then sorts a
    fresh int[] and fills a Dictionary<string,int> — all .NET code, no Python."""
    i = Expression.Parameter(Int32, "i")
    k = Expression.Variable(Int32, "k")
    acc = Expression.Variable(Int64, "acc")
    brk = Expression.Label("brk")
    loop = Expression.Loop(
        Expression.IfThenElse(
            Expression.LessThan(k, Expression.Constant(Int32(20000), Int32)),
            Expression.Block(
                Expression.Assign(acc, Expression.Add(
                    Expression.Multiply(acc, Expression.Constant(Int64(31), Int64)),
                    Expression.Convert(Expression.ExclusiveOr(i, k), Int64))),
                Expression.PostIncrementAssign(k)),
            Expression.Break(brk)),
        brk)
    arr = Expression.Variable(Array[Int32], "arr")
    rnd = Expression.New(clr.GetClrType(System.Random).GetConstructor(Array[System.Type]([clr.GetClrType(Int32)])), i)
    next_m = clr.GetClrType(System.Random).GetMethod("Next", Array[System.Type]([]))
    j = Expression.Variable(Int32, "j")
    brk2 = Expression.Label("brk2")
    r = Expression.Variable(clr.GetClrType(System.Random), "r")
    fill = Expression.Loop(
        Expression.IfThenElse(
            Expression.LessThan(j, Expression.Constant(Int32(4000), Int32)),
            Expression.Block(
                Expression.Assign(Expression.ArrayAccess(arr, j), Expression.Call(r, next_m)),
                Expression.PostIncrementAssign(j)),
            Expression.Break(brk2)),
        brk2)
    sort_m = [m for m in clr.GetClrType(Array).GetMethods()
              if m.Name == "Sort" and m.IsGenericMethodDefinition
              and len(m.GetParameters()) == 1][0].MakeGenericMethod(Array[System.Type]([clr.GetClrType(Int32)]))
    dict_t = clr.GetClrType(Dictionary[String, Int32])
    d = Expression.Variable(dict_t, "d")
    set_item = dict_t.GetMethod("set_Item")
    tostr = clr.GetClrType(Int32).GetMethod("ToString", Array[System.Type]([]))
    m = Expression.Variable(Int32, "m")
    brk3 = Expression.Label("brk3")
    dict_loop = Expression.Loop(
        Expression.IfThenElse(
            Expression.LessThan(m, Expression.Constant(Int32(2000), Int32)),
            Expression.Block(
                Expression.Call(d, set_item,
                                Expression.Call(Expression.ArrayAccess(arr, m), tostr), m),
                Expression.PostIncrementAssign(m)),
            Expression.Break(brk3)),
        brk3)
    body = Expression.Block(
        Array[ParameterExpression]([k, acc, arr, j, r, d, m]),
        Expression.Assign(k, Expression.Constant(Int32(0), Int32)),
        Expression.Assign(acc, Expression.Constant(Int64(0), Int64)),
        loop,
        Expression.Assign(arr, Expression.NewArrayBounds(Int32, Expression.Constant(Int32(4000), Int32))),
        Expression.Assign(r, rnd),
        Expression.Assign(j, Expression.Constant(Int32(0), Int32)),
        fill,
        Expression.Call(sort_m, arr),
        Expression.Assign(d, Expression.New(dict_t)),
        Expression.Assign(m, Expression.Constant(Int32(0), Int32)),
        dict_loop,
    )
    lam = Expression.Lambda[Action[Int32]](body, Array[ParameterExpression]([i]))
    return lam.Compile()


body = compiled_body()
end = time.monotonic() + seconds
rounds = 0
while time.monotonic() < end:
    Parallel.For(0, 64, body)
    lst = List[String]()
    for w in ("b", "a", "d", "c"):
        lst.Add(w)
    lst.Sort()
    rounds += 1
print("rounds", rounds)
