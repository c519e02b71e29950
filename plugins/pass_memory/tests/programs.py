"""Hand-written inputs of the memory passes, in the form InitMemRef (+ MaterializeSemanticAliases) prints
(docs/memory_planning.md, MemRefs): the reference pages' worked examples and small programs of our own.
Each is a function text at class-body indentation, to combine with `helpers.program`."""

from __future__ import annotations


def tile(shape: str, ref: str, dtype: str = "pl.FP32", space: str = "Vec", slot: str = "") -> str:
    """A tile annotation with a MemRef (`slot`: the subscript of a declared allocation's slot, `[0]`)."""
    return f"pl.Tile[{shape}, {dtype}, pl.MemRef({ref}){slot}, pl.Mem.{space}]"


# allocate_memory_addr.md E1: memory_reuse.md E2 after MemoryReuse (s on big's buffer, s2 on its own).
NAME_ORDER = f'''
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32], o1: pl.Out[pl.Tensor[[16, 64], pl.FP32]], o2: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[64, 64], pl.FP32]]:
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        s: {tile("[16, 64]", "mem_vec_6, pl.const(0, pl.INT64), 16384")} = pl.tile.load(b, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        s2: {tile("[16, 64]", "mem_vec_5, pl.const(0, pl.INT64), 4096")} = pl.tile.recip(s)
        r1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(s2, [0, 0], o1)
        big: {tile("[64, 64]", "mem_vec_6, pl.const(0, pl.INT64), 16384")} = pl.tile.load(a, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        big2: {tile("[64, 64]", "mem_vec_6, pl.const(0, pl.INT64), 16384")} = pl.tile.add(big, big)
        r2: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(big2, [0, 0], o2)
        return r1, r2
'''

# allocate_memory_addr.md E2: eight tensor params, tiles mem_vec_8 .. mem_vec_12 (string order 10, 11, 12, 8, 9).
STRING_ORDER = f'''
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, p0: pl.Tensor[[4, 8], pl.FP16], p1: pl.Tensor[[4, 8], pl.FP16], p2: pl.Tensor[[4, 8], pl.FP16], p3: pl.Tensor[[4, 8], pl.FP16], p4: pl.Tensor[[4, 8], pl.FP16], p5: pl.Tensor[[4, 8], pl.FP16], p6: pl.Tensor[[1, 3], pl.FP32], o1: pl.Out[pl.Tensor[[4, 8], pl.FP16]], o2: pl.Out[pl.Tensor[[1, 3], pl.FP32]]) -> tuple[pl.Tensor[[4, 8], pl.FP16], pl.Tensor[[1, 3], pl.FP32]]:
        mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
        mem_vec_9: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
        mem_vec_10: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 12)
        mem_vec_11: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
        mem_vec_12: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 12)
        x: {tile("[4, 8]", "mem_vec_8, pl.const(0, pl.INT64), 64", "pl.FP16")} = pl.tile.load(p0, [0, 0], [4, 8], [4, 8], target_memory=pl.Mem.Vec)
        y: {tile("[4, 8]", "mem_vec_9, pl.const(0, pl.INT64), 64", "pl.FP16")} = pl.tile.load(p1, [0, 0], [4, 8], [4, 8], target_memory=pl.Mem.Vec)
        z: {tile("[1, 3]", "mem_vec_10, pl.const(0, pl.INT64), 12")} = pl.tile.load(p6, [0, 0], [1, 3], [1, 3], target_memory=pl.Mem.Vec)
        s: {tile("[4, 8]", "mem_vec_11, pl.const(0, pl.INT64), 64", "pl.FP16")} = pl.tile.add(x, y)
        w: {tile("[1, 3]", "mem_vec_12, pl.const(0, pl.INT64), 12")} = pl.tile.add(z, z)
        r1: pl.Tensor[[4, 8], pl.FP16] = pl.tile.store(s, [0, 0], o1)
        r2: pl.Tensor[[1, 3], pl.FP32] = pl.tile.store(w, [0, 0], o2)
        return r1, r2
'''

# init_mem_ref.md E1: a slice and a reshape view of one allocation, then exp of the slice.
VIEWS = f'''
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        t: {tile("[32, 64]", "mem_vec_2, pl.const(0, pl.INT64), 8192")} = pl.tile.load(a, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
        s: {tile("[16, 32]", "mem_vec_2, 2112, 3968")} = pl.tile.slice(t, [16, 32], [8, 16])
        e: {tile("[16, 32]", "mem_vec_3, pl.const(0, pl.INT64), 2048")} = pl.tile.exp(s)
        o: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(e, [0, 0], out)
        return o
'''


def declared(slot_index_loop: bool = False) -> str:
    """init_mem_ref.md E6 after InitMemRef: `ping` (one slot) and `ring` (two slots) declared, t4 unbound;
    with `slot_index_loop`, a loop also loads into `ring[i % 2]` (a runtime slot index)."""
    loop = f'''
        for i in pl.range(2):
            t5: {tile("[32, 64]", "ring, (i % 2) * 8192, 8192, slots=2", slot="[i % 2]")} = pl.tile.load(a, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
            t6: {tile("[32, 64]", "mem_vec_3, pl.const(0, pl.INT64), 8192")} = pl.tile.exp(t5)
            r3: pl.Tensor[[32, 64], pl.FP32] = pl.tile.store(t6, [0, 0], o3)''' if slot_index_loop else ""
    alloc3 = "\n        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)" if slot_index_loop else ""
    out3 = ", o3: pl.Out[pl.Tensor[[32, 64], pl.FP32]]" if slot_index_loop else ""
    return f'''
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]], o2: pl.Out[pl.Tensor[[32, 64], pl.FP32]]{out3}) -> pl.Tensor[[64, 64], pl.FP32]:
        ping: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384, pinned=True)
        ring: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384, pinned=True)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192){alloc3}
        t0: {tile("[64, 64]", "ping, pl.const(0, pl.INT64), 16384")} = pl.tile.load(a, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        t1: {tile("[32, 64]", "ring, pl.const(0, pl.INT64), 8192, slots=2", slot="[0]")} = pl.tile.load(a, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
        t2: {tile("[32, 64]", "ring, pl.const(8192, pl.INT64), 8192, slots=2", slot="[1]")} = pl.tile.load(a, [32, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
        t3: {tile("[64, 64]", "ping, pl.const(0, pl.INT64), 16384")} = pl.tile.exp(t0)
        t4: {tile("[32, 64]", "mem_vec_2, pl.const(0, pl.INT64), 8192")} = pl.tile.add(t1, t2)
        r2: pl.Tensor[[32, 64], pl.FP32] = pl.tile.store(t4, [0, 0], o2){loop}
        r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(t3, [0, 0], o)
        return r
'''


def vec_kernel(rows: int, cols: int, func_type: str = "InCore", name: str = "k", reserve: str = "") -> str:
    """One Vec tile of rows x cols FP32 loaded, doubled in place, stored; `reserve` a reserve_buffer line."""
    size = rows * cols * 4
    ref = f"mem_vec_2, pl.const(0, pl.INT64), {size}"
    return f'''
    @pl.function(type=pl.FunctionType.{func_type})
    def {name}(self, a: pl.Tensor[[{rows}, {cols}], pl.FP32], out: pl.Out[pl.Tensor[[{rows}, {cols}], pl.FP32]]) -> pl.Tensor[[{rows}, {cols}], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, {size}){reserve}
        t: {tile(f"[{rows}, {cols}]", ref)} = pl.tile.load(a, [0, 0], [{rows}, {cols}], [{rows}, {cols}], target_memory=pl.Mem.Vec)
        u: {tile(f"[{rows}, {cols}]", ref)} = pl.tile.add(t, t)
        o: pl.Tensor[[{rows}, {cols}], pl.FP32] = pl.tile.store(u, [0, 0], out)
        return o
'''


def cube_kernel(name: str = "mykern_aic", reserve: str = "", func_type: str = "AIC") -> str:
    """A 16x16 FP16 matmul on the cube: Mat loads, moves to Left / Right, an FP32 Acc result stored."""
    return f'''
    @pl.function(type=pl.FunctionType.{func_type})
    def {name}(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        mem_mat_3: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 512)
        mem_mat_4: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 512)
        mem_left_5: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 512)
        mem_right_6: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 512)
        mem_acc_7: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 1024){reserve}
        am: {tile("[16, 16]", "mem_mat_3, pl.const(0, pl.INT64), 512", "pl.FP16", "Mat")} = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Mat)
        bm: {tile("[16, 16]", "mem_mat_4, pl.const(0, pl.INT64), 512", "pl.FP16", "Mat")} = pl.tile.load(b, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Mat)
        al: {tile("[16, 16]", "mem_left_5, pl.const(0, pl.INT64), 512", "pl.FP16", "Left")} = pl.tile.move(am, target_memory=pl.Mem.Left)
        br: {tile("[16, 16]", "mem_right_6, pl.const(0, pl.INT64), 512", "pl.FP16", "Right")} = pl.tile.move(bm, target_memory=pl.Mem.Right)
        c: {tile("[16, 16]", "mem_acc_7, pl.const(0, pl.INT64), 1024", "pl.FP32", "Acc")} = pl.tile.matmul(al, br)
        o: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(c, [0, 0], out)
        return o
'''


# -- MemoryReuse inputs (memory_reuse.md §5) -----------------------------------------------------------------

def vec(shape: str, base: str, size: int, dtype: str = "pl.FP32") -> str:
    return tile(shape, f"{base}, pl.const(0, pl.INT64), {size}", dtype)


def allocs(size: int, *names: str) -> str:
    return "".join(f"\n        {n}: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, {size})" for n in names)


# E1: a chain load -> add -> muls -> store, each on its own allocation.
CHAIN = f'''
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:{allocs(16384, "mem_vec_2", "mem_vec_3", "mem_vec_4")}
        t: {vec("[64, 64]", "mem_vec_2", 16384)} = pl.tile.load(a, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        u: {vec("[64, 64]", "mem_vec_3", 16384)} = pl.tile.add(t, t)
        v: {vec("[64, 64]", "mem_vec_4", 16384)} = pl.tile.muls(u, 2.0)
        o: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(v, [0, 0], out)
        return o
'''

# E2: s = load [16,64]; s2 = recip(s); store; big = load [64,64]; big2 = add(big, big); store.
LARGEST_FIRST = f'''
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32], o1: pl.Out[pl.Tensor[[16, 64], pl.FP32]], o2: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[64, 64], pl.FP32]]:{allocs(4096, "mem_vec_4", "mem_vec_5")}{allocs(16384, "mem_vec_6", "mem_vec_7")}
        s: {vec("[16, 64]", "mem_vec_4", 4096)} = pl.tile.load(b, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        s2: {vec("[16, 64]", "mem_vec_5", 4096)} = pl.tile.recip(s)
        r1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(s2, [0, 0], o1)
        big: {vec("[64, 64]", "mem_vec_6", 16384)} = pl.tile.load(a, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        big2: {vec("[64, 64]", "mem_vec_7", 16384)} = pl.tile.add(big, big)
        r2: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(big2, [0, 0], o2)
        return r1, r2
'''

# E3: t = load FP32; h = cast(t, BF16) (narrowing); f = cast(h, FP32) (widening).
CASTS = f'''
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:{allocs(4096, "mem_vec_2")}{allocs(2048, "mem_vec_3")}{allocs(4096, "mem_vec_4")}
        t: {vec("[16, 64]", "mem_vec_2", 4096)} = pl.tile.load(a, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        h: {vec("[16, 64]", "mem_vec_3", 2048, "pl.BF16")} = pl.tile.cast(t, target_type=pl.BF16, mode='round')
        f: {vec("[16, 64]", "mem_vec_4", 4096)} = pl.tile.cast(h, target_type=pl.FP32, mode='round')
        o: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(f, [0, 0], out)
        return o
'''

# E4: a loop whose yielded tile could not be put on the carried buffer (acc is read after nxt).
LOOP_CARRY = f'''
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], out2: pl.Out[pl.Tensor[[16, 64], pl.FP32]], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:{allocs(4096, "mem_vec_3", "mem_vec_4", "mem_vec_5", "mem_vec_6")}
        acc0: {vec("[16, 64]", "mem_vec_3", 4096)} = pl.tile.full([16, 64], dtype=pl.FP32, value=1.0)
        w: {vec("[16, 64]", "mem_vec_4", 4096)} = pl.tile.load(a, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(4, init_values=(acc0,)):
            nxt: {vec("[16, 64]", "mem_vec_5", 4096)} = pl.tile.add(acc, w)
            dbl: {vec("[16, 64]", "mem_vec_6", 4096)} = pl.tile.muls(acc, 2.0)
            pl.tile.store(dbl, [0, 0], out2)
            acc_out: {vec("[16, 64]", "mem_vec_3", 4096)} = pl.yield_(nxt)
        o: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(acc_out, [0, 0], out)
        return o
'''

# E4 (second part): a loop-invariant input read inside a loop.
LOOP_INVARIANT = f'''
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:{allocs(4096, "mem_vec_2", "mem_vec_3", "mem_vec_4")}
        w: {vec("[16, 64]", "mem_vec_2", 4096)} = pl.tile.load(a, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        for i in pl.range(4):
            x: {vec("[16, 64]", "mem_vec_3", 4096)} = pl.tile.add(w, w)
            y: {vec("[16, 64]", "mem_vec_4", 4096)} = pl.tile.exp(x)
            pl.tile.store(y, [i * 16, 0], out)
        return out
'''

# E5: init_mem_ref.md E3: an if whose branches compute u / v from t, then a transpose of the result.
IF_BRANCHES = f'''
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.FP32], flag: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[32, 16], pl.FP32]]) -> pl.Tensor[[32, 16], pl.FP32]:{allocs(2048, "mem_vec_2", "mem_vec_3", "mem_vec_4", "mem_vec_6")}
        t: {vec("[16, 32]", "mem_vec_2", 2048)} = pl.tile.load(a, [0, 0], [16, 32], [16, 32], target_memory=pl.Mem.Vec)
        if flag == 0:
            u: {vec("[16, 32]", "mem_vec_3", 2048)} = pl.tile.exp(t)
            res: {vec("[16, 32]", "mem_vec_3", 2048)} = pl.yield_(u)
        else:
            v: {vec("[16, 32]", "mem_vec_4", 2048)} = pl.tile.neg(t)
            res: {vec("[16, 32]", "mem_vec_3", 2048)} = pl.yield_(v)
        tr: {vec("[32, 16]", "mem_vec_6", 2048)} = pl.tile.transpose(res, 0, 1)
        o: pl.Tensor[[32, 16], pl.FP32] = pl.tile.store(tr, [0, 0], out)
        return o
'''

# E6: hand-written split AIV kernel: sm = sub(ld, pp) where pp is popped from the cube.
SPLIT_HAZARD = f'''
    @pl.function(type=pl.FunctionType.AIV, attrs={{"split": pl.SplitMode.LEFT_RIGHT}})
    def k(self, x: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:{allocs(4096, "buf_a", "buf_b", "buf_c")}
        ld: {tile("[32, 32]", "buf_a, 0, 4096")} = pl.tile.load(x, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec)
        pp: {tile("[32, 32]", "buf_b, 0, 4096")} = pl.tile.tpop_from_aic(split=2)
        sm: {tile("[32, 32]", "buf_c, 0, 4096")} = pl.tile.sub(ld, pp)
        o: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(sm, [0, 0], out)
        return o
'''


def pipelined(n: int = 64) -> str:
    """A stage=2 pipeline body (LowerPipelineLoops' tags): each stage loads, exps and stores its own chunk."""
    size = n * 4
    t = vec(f"[{n}]", "{b}", size)
    return f'''
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[{4 * n}], pl.FP32], out: pl.Out[pl.Tensor[[{4 * n}], pl.FP32]]) -> pl.Tensor[[{4 * n}], pl.FP32]:{allocs(size, "mem_vec_2", "mem_vec_3", "mem_vec_4", "mem_vec_5")}
        for i in pl.range(0, 4, 2):
            t: {t.format(b="mem_vec_2")} = pl.tile.load(a, [i * {n}], [{n}], [{n}], target_memory=pl.Mem.Vec, attrs={{"pipeline_membership": "0:0"}})
            u: {t.format(b="mem_vec_3")} = pl.tile.exp(t, attrs={{"pipeline_membership": "0:0"}})
            pl.tile.store(u, [i * {n}], out, attrs={{"pipeline_membership": "0:0"}})
            t_1: {t.format(b="mem_vec_4")} = pl.tile.load(a, [(i + 1) * {n}], [{n}], [{n}], target_memory=pl.Mem.Vec, attrs={{"pipeline_membership": "0:1"}})
            u_1: {t.format(b="mem_vec_5")} = pl.tile.exp(t_1, attrs={{"pipeline_membership": "0:1"}})
            pl.tile.store(u_1, [(i + 1) * {n}], out, attrs={{"pipeline_membership": "0:1"}})
        return out
'''
