"""The sample project builds to both backends, and its shaders do what they say
when executed (lavapipe for SPIR-V, LLVM's interpreter for DXIL)."""

from __future__ import annotations

import json
import math
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from harness import dxil_exec, dxil_tools, tools

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    proj = tmp_path_factory.mktemp("sample") / "sample_project"
    shutil.copytree(REPO / "sample_project", proj, ignore=shutil.ignore_patterns("out"))
    proc = subprocess.run([sys.executable, "-m", "shaderbuild", "build", str(proj)], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proj / "out"


def outputs(out: Path, backend: str, ext: str) -> list[Path]:
    return sorted((out / backend).rglob(f"*{ext}"))


def binding(manifest_path: Path) -> dict[str, dict]:
    m = json.loads(manifest_path.read_text())
    return {r["name"]: r for r in m["resources"]}


# the SPIR-V version a build's manifest reports -> the Vulkan environment spirv-val checks it for (the
# project targets Vulkan 1.1; the meshlet shaders Vulkan 1.2, mesh shaders being SPIR-V 1.4)
_VAL_ENV = {"1.3": "vulkan1.1", "1.5": "vulkan1.2"}


def test_every_spirv_validates_and_has_a_manifest(built):
    spvs = outputs(built, "spirv", ".spv")
    assert len(spvs) >= 4
    for spv in spvs:
        manifest = json.loads(Path(str(spv) + ".json").read_text())
        tools.spirv_val(spv.read_bytes(), env=_VAL_ENV[manifest["backend"]["vulkan"]["spirv_version"]])
        assert manifest["target"] == "spirv"


def test_every_dxil_parses(built):
    dxils = outputs(built, "dxil", ".dxil")
    assert len(dxils) == len(outputs(built, "spirv", ".spv"))      # every target is built for both backends
    stages = set()
    for d in dxils:
        manifest = json.loads(Path(str(d) + ".json").read_text())
        assert manifest["target"] == "dxil"
        if "library" in manifest:      # the ray-traced shadow library: dxil-spirv converts each shader
            names = [s["name"] for s in manifest["library"]["shaders"]]
            _read, spirv = dxil_tools.check_dxil_library(d.read_bytes(), names)
            assert sorted(names) == ["ch_shadows", "ms_shadows", "rg_shadows"]
            assert all(v is not None for v in spirv.values()), d
            stages.add("library")
            continue
        check = dxil_tools.check_dxil(d.read_bytes())
        stage = manifest["entry"]["stage"]
        stages.add(stage)
        if stage == "compute":     # every pass writes its results somewhere
            assert any(f"call void @dx.op.{op}" in check.ir
                       for op in ("bufferStore", "rawBufferStore", "textureStore")), d
        elif stage == "amplification":      # the meshlet culling pass hands its survivors on
            assert "call void @dx.op.dispatchMesh" in check.ir, d
        elif stage == "mesh":
            assert "call void @dx.op.storeVertexOutput" in check.ir and "call void @dx.op.emitIndices" in check.ir, d
        else:
            assert "call void @dx.op.storeOutput" in check.ir, d
        if stage == "hull":        # the terrain's patch constants
            assert "call void @dx.op.storePatchConstant" in check.ir, d
    assert stages == {"compute", "vertex", "pixel", "geometry", "hull", "domain", "mesh", "amplification", "library"}


def test_manifests_agree_across_backends(built):
    for spv in outputs(built, "spirv", ".spv"):
        rel = spv.relative_to(built / "spirv")
        dx = built / "dxil" / rel.with_suffix(".dxil")
        a, b = binding(Path(str(spv) + ".json")), binding(Path(str(dx) + ".json"))
        assert {k: v["hlsl"] for k, v in a.items()} == {k: v["hlsl"] for k, v in b.items()}


def run_both(vk, built: Path, stem: str, inputs: dict[str, bytes], out_name: str, out_size: int,
             groups=(1, 1, 1)) -> tuple[bytes, bytes]:
    spv = next(p for p in outputs(built, "spirv", ".spv") if p.stem == stem)
    dx = built / "dxil" / spv.relative_to(built / "spirv").with_suffix(".dxil")
    res = binding(Path(str(spv) + ".json"))
    names = list(inputs) + [out_name]
    data = {**inputs, out_name: bytes(out_size)}
    bufs = [vk.Buf(res[n]["vulkan"]["set"], res[n]["vulkan"]["binding"], data[n]) for n in names]
    got_vk = vk.run_compute(spv.read_bytes(), "main", bufs, groups=groups)[-1]
    dbufs = [(res[n]["hlsl"]["register"], res[n]["hlsl"]["space"], res[n]["hlsl"]["class"], data[n]) for n in names]
    got_dx = dxil_exec.run_dxil_compute(dx.read_bytes(), "main", dbufs, groups=groups)[-1]
    assert run_dxil_vk(vk, dx, res, names, data, groups) == got_vk, f"{stem}: DXIL through dxil-spirv differs"
    return got_vk, got_dx


def run_dxil_vk(vk, dx: Path, res: dict, names: list[str], data: dict[str, bytes], groups) -> bytes:
    """The DXIL build converted by dxil-spirv, run on lavapipe: buffers at (space, shift[class] + register).
    Returns the last buffer's final bytes."""
    from harness import dxil_consumer
    spirv = dxil_consumer.to_spirv(dx.read_bytes())
    entry = tools.spirv_cross_reflect(spirv)["entryPoints"][0]["name"]
    sh = dxil_consumer.SHIFTS
    bufs = [vk.Buf(res[n]["hlsl"]["space"], sh[res[n]["hlsl"]["class"]] + res[n]["hlsl"]["register"], data[n])
            for n in names]
    return vk.run_compute(spirv, entry, bufs, groups=groups)[-1]


def test_fill_permutations_execute(vk, built):
    for spv in outputs(built, "spirv", ".spv"):
        if not spv.stem.startswith("fill"):
            continue
        idx = json.loads((built / "index.json").read_text())
        key = next(t["permutation"] for t in idx["targets"] if t["outputs"]["binary"].endswith(spv.name))
        scale = int(key.split("=")[1])
        got_vk, got_dx = run_both(vk, built, spv.stem, {}, "Out", 4 * 128, groups=(2, 1, 1))
        expect = [i * scale + 1 for i in range(128)]
        assert list(struct.unpack("128I", got_vk)) == expect
        assert got_dx == got_vk


def hash_u32(x: int) -> int:
    m = 0xFFFFFFFF
    x ^= x >> 16
    x = (x * 0x7FEB352D) & m
    x ^= x >> 15
    x = (x * 0x846CA68B) & m
    x ^= x >> 16
    return x


def f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def test_particles_execute(vk, built):
    n = 64
    parts = []
    for i in range(n):
        pos = (float(i), 1.0, -float(i))
        vel = (0.5, float(i % 5), 0.0)
        age, life = (0.5 if i % 3 else 2.0), 1.0
        parts.append((pos, age, vel, life))
    raw = b"".join(struct.pack("8f", *p[0], p[1], *p[2], p[3]) for p in parts)
    got_vk, got_dx = run_both(vk, built, "particles", {"ParticlesIn": raw}, "ParticlesOut", len(raw))
    dt = f32(1.0 / 60.0)
    for i, (pos, age, vel, life) in enumerate(parts):
        out = struct.unpack_from("8f", got_vk, 32 * i)
        vy = f32(vel[1] - f32(9.81 * dt))
        new_age = f32(age + dt)
        if new_age >= life:
            h = hash_u32(i)
            expect = (0.0, 0.0, 0.0, 0.0, (h & 255) / 255.0 - 0.5, 4.0, ((h >> 8) & 255) / 255.0 - 0.5, life)
        else:
            expect = (pos[0] + vel[0] * dt, pos[1] + vy * dt, pos[2] + vel[2] * dt, new_age, vel[0], vy, vel[2], life)
        for a, b in zip(out, expect):
            assert math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-6), (i, out, expect)
    # DXIL float ops carry `fast` (as DXC's do): x / 255.0 may become x * (1 / 255.0), so the
    # two runs agree to rounding, not bit for bit
    n_floats = len(got_vk) // 4
    for a, b in zip(struct.unpack(f"{n_floats}f", got_dx), struct.unpack(f"{n_floats}f", got_vk)):
        assert math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-7), (a, b)


def test_histogram_executes(vk, built):
    values = [(i * 37 + 11) % 256 for i in range(64)]
    got_vk, got_dx = run_both(vk, built, "histogram", {"Values": struct.pack("64I", *values)}, "Bins", 64)
    expect = [sum(1 for v in values if v >> 4 == b) for b in range(16)]
    assert list(struct.unpack("16I", got_vk)) == expect
    assert got_dx == got_vk


def test_prefix_sum_executes(vk, built):
    spv = next(p for p in outputs(built, "spirv", ".spv") if p.stem == "prefix_sum")
    res = binding(Path(str(spv) + ".json"))
    values = [(i * 7 + 3) % 11 for i in range(128)]
    bufs = [vk.Buf(res["Input"]["vulkan"]["set"], res["Input"]["vulkan"]["binding"], struct.pack("128I", *values)),
            vk.Buf(res["Output"]["vulkan"]["set"], res["Output"]["vulkan"]["binding"], bytes(512))]
    raw = vk.run_compute(spv.read_bytes(), "main", bufs, groups=(2, 1, 1))[1]
    out = struct.unpack("128I", raw)
    dx = built / "dxil" / spv.relative_to(built / "spirv").with_suffix(".dxil")
    data = {"Input": struct.pack("128I", *values), "Output": bytes(512)}
    assert run_dxil_vk(vk, dx, res, ["Input", "Output"], data, (2, 1, 1)) == raw   # group sync: not on lli
    expect = []
    for g in range(2):                      # an inclusive scan within each 64-thread group
        total = 0
        for v in values[64 * g: 64 * g + 64]:
            total += v
            expect.append(total)
    assert list(out) == expect


def aces(x: float) -> float:
    return min(1.0, max(0.0, (x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14)))


def test_tonemap_draws_the_aces_curve(vk, built):
    """The full-screen tonemap pass, drawn on lavapipe from a 2x2 HDR texture (nearest sampling)."""
    spvs = {(p.parent.name, p.stem): p for p in outputs(built, "spirv", ".spv")}
    vs = next(p for (_, stem), p in spvs.items() if stem.startswith("tonemap_vs"))
    ps = next(p for (_, stem), p in spvs.items() if stem.startswith("tonemap_ps"))
    res = binding(Path(str(ps) + ".json"))
    hdr = [(0.25, 0.5, 1.0, 1.0), (2.0, 4.0, 0.0, 1.0), (0.0, 0.1, 8.0, 1.0), (1.0, 1.0, 1.0, 1.0)]
    exposure = 1.5
    frame = struct.pack("16f", *([0.0] * 16)) + struct.pack("3ff", 0, 0, 0, 0) + struct.pack("3ff", 0, 0, 1, exposure) \
        + struct.pack("3fI", 1, 1, 1, 0)
    fr, tx, sm = res["Frame"]["vulkan"], res["HdrColor"]["vulkan"], res["LinearWrap"]["vulkan"]
    descriptors = [vk.Buf(fr["set"], fr["binding"], frame, kind="uniform"),
                   vk.Image(tx["set"], tx["binding"], struct.pack("16f", *[c for t in hdr for c in t]), 2, 2,
                            format="rgba32f"),
                   vk.Sampler(sm["set"], sm["binding"], filter="nearest")]
    px = vk.run_graphics(vs.read_bytes(), "vs_main", ps.read_bytes(), "ps_main", 2, 2, descriptors)
    for i, texel in enumerate(hdr):
        ldr = [aces(c * exposure) ** (1 / 2.2) for c in texel[:3]]
        lum = 0.2126 * ldr[0] + 0.7152 * ldr[1] + 0.0722 * ldr[2]
        x, y = i % 2, i // 2
        row = 1 - y      # the shader uses D3D clip space and is drawn without -fvk-invert-y: rows come out flipped
        got = px[4 * (2 * row + x): 4 * (2 * row + x) + 4]
        want = [round(v * 255) for v in (*ldr, lum)]
        assert all(abs(g - w) <= 1 for g, w in zip(got, want)), (i, list(got), want)
    # the DXIL builds through dxil-spirv: the same draw at D3D's bindings gives the same pixels
    from harness import dxil_consumer
    dx = {k: built / "dxil" / p.relative_to(built / "spirv").with_suffix(".dxil") for k, p in (("vs", vs), ("ps", ps))}
    conv = {k: dxil_consumer.to_spirv(p.read_bytes()) for k, p in dx.items()}
    entry = {k: tools.spirv_cross_reflect(v)["entryPoints"][0]["name"] for k, v in conv.items()}
    dres, sh = binding(Path(str(dx["ps"]) + ".json")), dxil_consumer.SHIFTS
    at = {n: (dres[n]["hlsl"]["space"], sh[dres[n]["hlsl"]["class"]] + dres[n]["hlsl"]["register"])
          for n in ("Frame", "HdrColor", "LinearWrap")}
    ddescs = [vk.Buf(*at["Frame"], frame, kind="uniform"),
              vk.Image(*at["HdrColor"], struct.pack("16f", *[c for t in hdr for c in t]), 2, 2, format="rgba32f"),
              vk.Sampler(*at["LinearWrap"], filter="nearest")]
    assert vk.run_graphics(conv["vs"], entry["vs"], conv["ps"], entry["ps"], 2, 2, ddescs) == px


def test_tonemap_carries_its_root_signature(built):
    """tonemap.hlsl's [RootSignature]: an RTS0 part in both DXIL containers, and the same root signature
    in every manifest of the pass (both backends)."""
    from harness.dxil_tools import container_parts as _parts
    from harness.rts0 import read_rts0

    dxils = [d for d in outputs(built, "dxil", ".dxil") if d.stem.startswith("tonemap")]
    assert len(dxils) == 2
    for d in dxils:
        rs = read_rts0(_parts(d.read_bytes())["RTS0"])
        assert [(p["ParameterType"], p["ShaderVisibility"]) for p in rs["Parameters"]] == [(2, 5), (0, 5)]
        assert rs["StaticSamplers"][0]["Filter"] == 0x15
    manifests = [json.loads(Path(str(p) + ".json").read_text())
                 for p in outputs(built, "dxil", ".dxil") + outputs(built, "spirv", ".spv")]
    carried = [m["root_signature"] for m in manifests if "root_signature" in m]
    assert len(carried) == 4 and all(m["source"].endswith("tonemap.hlsl") for m in manifests if "root_signature" in m)
    assert len({c["string"] for c in carried}) == 1


def test_terrain_tessellates_and_lights(vk, built):
    """The tessellated terrain (vertex, hull, domain, pixel) drawn on lavapipe: one quad patch over
    the whole target, a constant heightmap (the height moves the surface, not its normal), a
    view-projection taking world (x, z) to clip (x, y); every pixel is the sun colour times
    0.15 + 0.85 * (n . -sun_dir) with n = +y.  Then the DXIL builds through dxil-spirv: same pixels."""
    spvs = {p.stem: p for p in outputs(built, "spirv", ".spv") if p.stem.startswith("terrain_")}
    assert sorted(spvs) == ["terrain_ds_main", "terrain_hs_main", "terrain_ps_main", "terrain_vs_main"]
    hs_manifest = json.loads(Path(str(spvs["terrain_hs_main"]) + ".json").read_text())
    assert hs_manifest["entry"]["tessellation"] == {
        "domain": "quad", "partitioning": "fractional_odd", "output_topology": "triangle_cw",
        "input_control_points": 4, "output_control_points": 4, "max_tess_factor": 15.0,
        "patch_constant_function": "terrain_patch"}
    res = binding(Path(str(spvs["terrain_ds_main"]) + ".json"))
    m = [[1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0.5], [0, 0, 0, 1]]      # clip = (x, z, 0.5, 1)
    sun_dir = (0.0, -math.sqrt(0.5), -math.sqrt(0.5))
    sun_color = (1.0, 0.5, 0.25)
    frame = struct.pack("16f", *[m[r][c] for c in range(4) for r in range(4)]) \
        + struct.pack("3ff", 0.0, 4.0, 0.0, 0.0) + struct.pack("3ff", *sun_dir, 1.0) + struct.pack("3fI", *sun_color, 0)
    heights = struct.pack("4f", 0.5, 0.5, 0.5, 0.5)
    quad = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
    vb = vk.VertexBuffer(b"".join(struct.pack("5f", x, 0.0, z, (x + 1) / 2, (z + 1) / 2) for x, z in quad), 20,
                         [(0, "float3", 0), (1, "float2", 12)])
    fr, hm, sm = res["Frame"]["vulkan"], res["Heightmap"]["vulkan"], res["LinearWrap"]["vulkan"]
    descs = [vk.Buf(fr["set"], fr["binding"], frame, kind="uniform"),
             vk.Image(hm["set"], hm["binding"], heights, 2, 2, format="r32f"),
             vk.Sampler(sm["set"], sm["binding"], filter="nearest")]
    size = 16
    spv = {k: spvs[f"terrain_{k}_main"].read_bytes() for k in ("vs", "hs", "ds", "ps")}
    px = vk.run_graphics(spv["vs"], "vs_main", spv["ps"], "ps_main", size, size, descs, [vb], 4,
                         tessellation=(spv["hs"], "hs_main", spv["ds"], "ds_main", 4))
    lit = 0.15 + 0.85 * math.sqrt(0.5)
    want = tuple(round(c * lit * 255) for c in sun_color) + (255,)
    for i in range(size * size):
        assert all(abs(g - w) <= 1 for g, w in zip(px[4 * i:4 * i + 4], want)), (i % size, i // size, px[4 * i:4 * i + 4])
    from harness import dxil_consumer
    dx = {k: built / "dxil" / p.relative_to(built / "spirv").with_suffix(".dxil") for k, p in spvs.items()}
    conv = {k[8:10]: dxil_consumer.to_spirv(p.read_bytes()) for k, p in dx.items()}
    entry = {k: tools.spirv_cross_reflect(v)["entryPoints"][0]["name"] for k, v in conv.items()}
    dres, sh = binding(Path(str(dx["terrain_ds_main"]) + ".json")), dxil_consumer.SHIFTS
    at = {n: (dres[n]["hlsl"]["space"], sh[dres[n]["hlsl"]["class"]] + dres[n]["hlsl"]["register"])
          for n in ("Frame", "Heightmap", "LinearWrap")}
    ddescs = [vk.Buf(*at["Frame"], frame, kind="uniform"), vk.Image(*at["Heightmap"], heights, 2, 2, format="r32f"),
              vk.Sampler(*at["LinearWrap"], filter="nearest")]
    got = vk.run_graphics(conv["vs"], entry["vs"], conv["ps"], entry["ps"], size, size, ddescs, [vb], 4,
                          tessellation=(conv["hs"], entry["hs"], conv["ds"], entry["ds"], 4))
    assert got == px, "the terrain drawn from DXIL through dxil-spirv differs from the SPIR-V draw"


# bindless_material.hlsl: heap contents (element -> texture), the material records and the pixel -> material map
MAT_ALBEDO = {5: [(1.0, 0.5, 0.25, 1.0), (0.5, 0.5, 0.5, 1.0)], 9: [(0.2, 0.4, 0.6, 0.8), (1.0, 0.0, 1.0, 0.0)]}
MAT_MASK = {2: [1.0, 0.5], 12: [0.25, 2.0]}
MATERIALS = [(5, 2, (1.0, 1.0, 1.0, 1.0)), (9, 12, (2.0, 0.5, 1.0, 4.0)), (5, 12, (0.5, 0.5, 0.5, 0.5))]
PIXEL_MATERIAL = [0, 1, 2, 1, 0, 2, 2, 1]
MAT_HEAP = 16


def _material_heap(vk, set_: int, binding: int) -> list:
    heap = []
    for i in range(MAT_HEAP):
        if i in MAT_ALBEDO:
            data = struct.pack("8f", *[c for t in MAT_ALBEDO[i] for c in t])
            heap.append(vk.Image(set_, binding, data, 2, 1, format="rgba32f", index=i))
        elif i in MAT_MASK:
            heap.append(vk.Image(set_, binding, struct.pack("2f", *MAT_MASK[i]), 2, 1, format="r32f", index=i))
        else:       # every other element holds a valid descriptor of some type
            heap.append(vk.Buf(set_, binding, struct.pack("I", i), index=i))
    return heap


def _material_expected() -> list[float]:
    out: list[float] = []
    for px, mat in enumerate(PIXEL_MATERIAL):
        albedo, mask, tint = MATERIALS[mat]
        texel = px & 1
        out += [f32(f32(MAT_ALBEDO[albedo][texel][c] * tint[c]) * MAT_MASK[mask][texel]) for c in range(4)]
    return out


def test_bindless_material_manifests_carry_heap_usage(built):
    for backend, ext in (("spirv", ".spv"), ("dxil", ".dxil")):
        path = next(p for p in outputs(built, backend, ext) if p.stem == "bindless_material")
        heaps = json.loads(Path(str(path) + ".json").read_text())["descriptor_heaps"]
        assert [(h["heap"], h["non_uniform"], [t["kind"] for t in h["types"]]) for h in heaps] == [
            ("resource", True, ["Texture2D<float4>", "Texture2D<float>"])]
        # the project shifts the SPIR-V build's t/s/u registers to 16+/32+/48+, so binding 0 of set 0 is free
        # for the heap; the DXIL build's informational Vulkan view has no shifts: the heap follows t0, t1, u0
        assert {k: heaps[0]["vulkan"][k] for k in ("set", "binding", "descriptor_type")} == {
            "set": 0, "binding": 0 if backend == "spirv" else 2, "descriptor_type": "sampled_image"}


def test_bindless_material_executes(vk, built):
    spv = next(p for p in outputs(built, "spirv", ".spv") if p.stem == "bindless_material")
    dx = built / "dxil" / spv.relative_to(built / "spirv").with_suffix(".dxil")
    manifest = json.loads(Path(str(spv) + ".json").read_text())
    res = {r["name"]: r for r in manifest["resources"]}
    records = b"".join(struct.pack("II8x4f", a, m, *t) for a, m, t in MATERIALS)
    assert res["Materials"]["vulkan"]["stride"] == res["Materials"]["hlsl"]["stride"] == 32
    data = {"Materials": records, "PixelMaterial": struct.pack("8I", *PIXEL_MATERIAL), "Shaded": bytes(8 * 16)}
    heap_vk = manifest["descriptor_heaps"][0]["vulkan"]
    bufs = [vk.Buf(res[n]["vulkan"]["set"], res[n]["vulkan"]["binding"], data[n]) for n in data]
    got = vk.run_compute(spv.read_bytes(), "main", bufs + _material_heap(vk, heap_vk["set"], heap_vk["binding"]))
    assert list(struct.unpack("32f", got[2])) == _material_expected()
    # the DXIL build through dxil-spirv: registers at (space, shift[class] + register), the heap at set 0 binding 0
    from harness import dxil_consumer
    spirv = dxil_consumer.to_spirv(dx.read_bytes())
    sh = dxil_consumer.SHIFTS
    dbufs = [vk.Buf(res[n]["hlsl"]["space"], sh[res[n]["hlsl"]["class"]] + res[n]["hlsl"]["register"], data[n])
             for n in data]
    got_dx = vk.run_compute(spirv, "main", dbufs + _material_heap(vk, 0, 0))
    assert got_dx[2] == got[2]


def test_shadow_cube_gs_renders_one_face(vk, built):
    """The point-light shadow pass: the geometry shader runs once per cube face ([instance(6)]) and writes
    the triangle to layer `face` with that face's matrix. Face 2 gets the identity, the others a zero matrix
    (every vertex at w = 0: clipped), so layer 2 holds the distance to the light of a full-screen triangle at
    z = 0.5 and the other layers stay clear. The DXIL builds through dxil-spirv draw the same six layers."""
    from harness import dxil_consumer
    w = h = 8
    far = 2.0
    stems = {p.stem: p for p in outputs(built, "spirv", ".spv") if p.stem.startswith("shadow_cube_")}
    vs, gs, ps = (stems[f"shadow_cube_{k}_main"] for k in ("vs", "gs", "ps"))
    identity = [1.0 if r == c else 0.0 for r in range(4) for c in range(4)]
    light = b"".join(struct.pack("16f", *(identity if f == 2 else [0.0] * 16)) for f in range(6)) \
        + struct.pack("3ff", 0.0, 0.0, 0.0, far)
    world = struct.pack("16f", *identity)
    tri = struct.pack("9f", -1, -1, 0.5, 3, -1, 0.5, -1, 3, 0.5)
    want = bytearray(w * h * 4 * 6)
    for y in range(h):
        for x in range(w):
            px, py = (x + 0.5) / w * 2 - 1, (y + 0.5) / h * 2 - 1
            v = min(1.0, math.sqrt(px * px + py * py + 0.25) / far)
            i = (2 * w * h + y * w + x) * 4
            want[i:i + 4] = bytes([int(v * 255 + 0.5)] * 4)

    def close(got: bytes) -> bool:
        return len(got) == len(want) and all(abs(a - b) <= 1 for a, b in zip(got, want))

    res = {**binding(Path(str(gs) + ".json")), **binding(Path(str(vs) + ".json"))}
    at = {n: (res[n]["vulkan"]["set"], res[n]["vulkan"]["binding"]) for n in ("ShadowLight", "ShadowObject")}
    descs = [vk.Buf(*at["ShadowLight"], light, kind="uniform"), vk.Buf(*at["ShadowObject"], world, kind="uniform")]
    vb = [vk.VertexBuffer(tri, 12, [(0, "float3", 0)])]
    px = vk.run_graphics(vs.read_bytes(), "vs_main", ps.read_bytes(), "ps_main", w, h, descs, vb, 3,
                         gs=(gs.read_bytes(), "gs_main"), layers=6)
    assert close(px)
    dx = {k: built / "dxil" / p.relative_to(built / "spirv").with_suffix(".dxil") for k, p in
          (("vs", vs), ("gs", gs), ("ps", ps))}
    conv = {k: dxil_consumer.to_spirv(p.read_bytes()) for k, p in dx.items()}
    reflect = {k: tools.spirv_cross_reflect(v) for k, v in conv.items()}
    entry = {k: r["entryPoints"][0]["name"] for k, r in reflect.items()}
    sh = dxil_consumer.SHIFTS
    dat = {n: (res[n]["hlsl"]["space"], sh[res[n]["hlsl"]["class"]] + res[n]["hlsl"]["register"]) for n in at}
    ddescs = [vk.Buf(*dat["ShadowLight"], light, kind="uniform"), vk.Buf(*dat["ShadowObject"], world, kind="uniform")]
    loc = reflect["vs"]["inputs"][0]["location"]
    dpx = vk.run_graphics(conv["vs"], entry["vs"], conv["ps"], entry["ps"], w, h, ddescs,
                          [vk.VertexBuffer(tri, 12, [(loc, "float3", 0)])], 3, gs=(conv["gs"], entry["gs"]), layers=6)
    assert dpx == px


def test_ray_traced_shadows_execute(vk, built):
    """The shadow library (raygen, miss, closest-hit) as a ray-tracing pipeline over a ground of G-buffer
    positions under an occluding quad; the shadow mask must be what the reference tracer says (1: the
    ray towards the light misses, 0: the quad is in the way; sky pixels are lit)."""
    from harness import accel

    spv = next(p for p in outputs(built, "spirv", ".spv") if p.stem == "rt_shadows")
    res = binding(Path(f"{spv}.json"))
    size = 8
    quad = accel.Triangles(((-2, 2, -4), (0, 2, -4), (-2, 2, 4), (0, 2, -4), (0, 2, 4), (-2, 2, 4)))
    scene = accel.Scene(blases=((quad,),), instances=(accel.Instance(0),))
    light, bias, max_distance = (0.0, 1.0, 0.0), 0.01, 100.0
    positions, normals, expected = b"", b"", []
    for y in range(size):
        for x in range(size):
            p = (x - size / 2 + 0.5, 0.0, y - size / 2 + 0.5)
            sky = x == size - 1 and y == 0
            positions += struct.pack("<4f", *p, 0.0 if sky else 1.0)
            normals += struct.pack("<4f", 0.0, 1.0, 0.0, 0.0)
            origin = (p[0], p[1] + bias, p[2])
            hit = accel.trace(scene, origin, light, 0.0, max_distance)
            expected.append(1.0 if sky or hit is None else 0.0)
    assert 0.0 in expected and 1.0 in expected

    def at(name: str) -> tuple[int, int]:
        return res[name]["vulkan"]["set"], res[name]["vulkan"]["binding"]

    constants = struct.pack("<3fff", *light, bias, max_distance).ljust(32, b"\0")
    shadow = vk.Image(*at("g_Shadow"), data=bytes(4 * size * size), width=size, height=size, format="r32f",
                      kind="storage_image")
    descriptors = [vk.Buf(*at("ShadowConstants"), constants, kind="uniform"), accel.AccelStructure(*at("g_Scene"), scene),
                   vk.Image(*at("g_Positions"), data=positions, width=size, height=size, format="rgba32f"),
                   vk.Image(*at("g_Normals"), data=normals, width=size, height=size, format="rgba32f"), shadow]
    result = vk.run_raytracing(spv.read_bytes(), "rg_shadows", (size, size), descriptors, miss=("ms_shadows",),
                               hit_groups=({"closest": "ch_shadows"},))
    got = struct.unpack(f"<{size * size}f", result["buffers"][-1])
    assert list(got) == expected
    # the DXIL library: each shader through dxil-spirv, bound where it puts them (set = space,
    # binding = shift of the register class + register)
    from harness import dxil_consumer

    dx = built / "dxil" / spv.relative_to(built / "spirv").with_suffix(".dxil")
    modules = {n: dxil_consumer.to_spirv(dx.read_bytes(), n) for n in ("rg_shadows", "ms_shadows", "ch_shadows")}

    def dxil_at(name: str) -> tuple[int, int]:
        h = res[name]["hlsl"]
        return h["space"], dxil_consumer.SHIFTS[h["class"]] + h["register"]

    shadow = vk.Image(*dxil_at("g_Shadow"), data=bytes(4 * size * size), width=size, height=size, format="r32f",
                      kind="storage_image")
    descriptors = [vk.Buf(*dxil_at("ShadowConstants"), constants, kind="uniform"),
                   accel.AccelStructure(*dxil_at("g_Scene"), scene),
                   vk.Image(*dxil_at("g_Positions"), data=positions, width=size, height=size, format="rgba32f"),
                   vk.Image(*dxil_at("g_Normals"), data=normals, width=size, height=size, format="rgba32f"), shadow]
    result = vk.run_raytracing(b"", "rg_shadows", (size, size), descriptors, miss=("ms_shadows",),
                               hit_groups=({"closest": "ch_shadows"},), modules=modules)
    dxil_consumer.STATS.executed += 1
    assert list(struct.unpack(f"<{size * size}f", result["buffers"][-1])) == expected


# the meshlet renderer's scene, in view space = pixels of a 16 x 16 target: meshlet -> rectangle, colour
MESHLETS = [((1, 1, 6, 6), (1.0, 0.0, 0.0, 1.0)), ((8, 1, 14, 5), (0.0, 1.0, 0.0, 1.0)),
            ((12, 9, 15, 14), (0.0, 0.0, 1.0, 1.0)), ((2, 9, 8, 15), (1.0, 1.0, 0.0, 1.0))]


def _meshlet_scene(view_rect: tuple[float, float, float, float]) -> dict[str, bytes]:
    """Buffers of the sample meshlet renderer: one quad (four vertices, two triangles) per meshlet."""
    meshlets, positions, triangles = b"", b"", b""
    for i, ((x0, y0, x1, y1), color) in enumerate(MESHLETS):
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        radius = math.hypot(x1 - cx, y1 - cy)
        meshlets += struct.pack("<4I4f4f", 4 * i, 4, 2 * i, 2, cx, cy, radius, 0.0, *color)
        positions += b"".join(struct.pack("<4f", x, y, 0.5, 1.0) for y in (y0, y1) for x in (x0, x1))
        triangles += struct.pack("<2I", 0 | 1 << 8 | 2 << 16, 1 | 3 << 8 | 2 << 16)
    # cbuffer MeshletView: ViewRect, Scale, Offset, MeshletCount (36 bytes, one 48-byte block)
    view = struct.pack("<4f2f2fI", *view_rect, 2 / 16, 2 / 16, -1.0, -1.0, len(MESHLETS)) + bytes(12)
    return {"Meshlets": meshlets, "Positions": positions, "Triangles": triangles, "MeshletView": view}


def _meshlet_image(drawn: list[int]) -> bytes:
    """Pixel centres inside a drawn meshlet's rectangle take its colour (the rectangles do not overlap)."""
    want = bytearray(16 * 16 * 4)
    for i in drawn:
        (x0, y0, x1, y1), color = MESHLETS[i]
        for y in range(y0, y1):
            for x in range(x0, x1):
                want[(y * 16 + x) * 4:(y * 16 + x) * 4 + 4] = bytes(int(c * 255) for c in color)
    return bytes(want)


@pytest.mark.parametrize("view_rect,drawn", [((0, 0, 16, 16), [0, 1, 2, 3]), ((0, 0, 10, 16), [0, 1, 3])])
def test_meshlet_renderer_culls_and_draws(vk, built, view_rect, drawn):
    """The meshlet renderer on lavapipe: the amplification shader keeps the meshlets whose bounding
    circle meets the view rectangle (with the narrow view, meshlet 2 lies wholly right of it), the mesh
    shader draws each kept meshlet's two triangles in its per-primitive colour. Then again with the
    amplification shader's DXIL build converted by dxil-spirv (the mesh shader from SPIR-V: lavapipe
    does not draw dxil-spirv's component-wise SV_Position writes, and the pixel shader from SPIR-V:
    dxil-spirv puts COLOR0 at its signature row, Location 1; tests/resources/test_mesh_shaders.py draws
    a pixel shader's DXIL too): the same pixels."""
    from harness import dxil_consumer
    stems = {p.stem: p for p in outputs(built, "spirv", ".spv") if p.stem.startswith("meshlet_")}
    task, mesh, ps = (stems[f"meshlet_{k}_main"] for k in ("as", "ms", "ps"))
    manifest = json.loads(Path(str(mesh) + ".json").read_text())
    assert manifest["entry"]["mesh"] == {"output_topology": "triangle", "max_vertices": 64, "max_primitives": 64,
                                         "payload_size": 128}
    data = _meshlet_scene(view_rect)
    res = {**binding(Path(str(task) + ".json")), **binding(Path(str(mesh) + ".json"))}

    def buf(set_, binding_, name):
        return vk.Buf(set_, binding_, data[name], kind="uniform" if name == "MeshletView" else "storage")

    descs = [buf(res[n]["vulkan"]["set"], res[n]["vulkan"]["binding"], n) for n in data]
    px = vk.run_mesh(mesh.read_bytes(), "ms_main", ps.read_bytes(), "ps_main", 16, 16, (1, 1, 1),
                     task=(task.read_bytes(), "as_main"), descriptors=descs)
    assert px == _meshlet_image(drawn)
    twin = dxil_consumer.to_spirv((built / "dxil" / task.relative_to(built / "spirv").with_suffix(".dxil")).read_bytes())
    twin_entry = tools.spirv_cross_reflect(twin)["entryPoints"][0]["name"]
    sh = dxil_consumer.SHIFTS
    twin_at = {n: (res[n]["hlsl"]["space"], sh[res[n]["hlsl"]["class"]] + res[n]["hlsl"]["register"])
               for n in ("Meshlets", "MeshletView")}
    extra = [buf(*twin_at[n], n) for n in twin_at
             if twin_at[n] != (res[n]["vulkan"]["set"], res[n]["vulkan"]["binding"])]
    dpx = vk.run_mesh(mesh.read_bytes(), "ms_main", ps.read_bytes(), "ps_main", 16, 16, (1, 1, 1),
                      task=(twin, twin_entry), descriptors=descs + extra)
    assert dpx == px, "the amplification shader's DXIL through dxil-spirv culls differently"


def test_meshlet_mesh_shader_dxil_runs_on_the_interpreter(built):
    """The meshlet renderer's DXIL mesh shader executed by the lli interpreter for the meshlets an
    amplification shader would keep (ids in the payload): each group outputs its meshlet's four vertices
    in clip space, its two triangles and their colour, as computed here from the scene."""
    data = _meshlet_scene((0, 0, 16, 16))
    dx = next(p for p in outputs(built, "dxil", ".dxil") if p.stem == "meshlet_ms_main")
    manifest = json.loads(Path(str(dx) + ".json").read_text())
    res = {r["name"]: r["hlsl"] for r in manifest["resources"]}
    refl = manifest["backend"]["dxil"]
    position = next(i for i, e in enumerate(refl["outputs"]) if e["semantic"] == "SV_Position")
    color = next(i for i, e in enumerate(refl["primitive_outputs"]) if e["semantic"] == "COLOR")
    kept = [3, 0, 1]
    payload = struct.pack("<32I", *kept, *[0] * 29)
    bufs = [(res[n]["register"], res[n]["space"], res[n]["class"], data[n]) for n in data]
    got = dxil_exec.run_dxil_mesh(dx.read_bytes(), "ms_main", bufs, (len(kept), 1, 1), payload)
    for out, m in zip(got, kept):
        (x0, y0, x1, y1), rgba = MESHLETS[m]
        assert out.counts == (4, 2) and out.indices == [(0, 1, 2), (1, 3, 2)]
        for k in range(4):
            x, y = (x1 if k & 1 else x0), (y1 if k & 2 else y0)
            assert out.value(False, position, k) == (x / 8 - 1, y / 8 - 1, 0.5, 1.0)
        assert [out.value(True, color, p) for p in range(2)] == [rgba, rgba]


def test_programs_json_lists_the_library_shaders_by_kind(built):
    programs = json.loads((built / "programs.json").read_text())["programs"]
    lib = programs["shaders/raytracing/rt_shadows.hlsl@spirv"]
    assert lib["entries"] == {"raygeneration": ["rg_shadows"], "miss": ["ms_shadows"], "closesthit": ["ch_shadows"]}
    stages = {r["name"]: r["stages"] for r in lib["resources"]}
    assert stages == {"ShadowConstants": ["raygeneration"], "g_Scene": ["raygeneration"],
                      "g_Positions": ["raygeneration"], "g_Normals": ["raygeneration"], "g_Shadow": ["raygeneration"]}
    dxil = programs["shaders/raytracing/rt_shadows.hlsl@dxil"]       # the DXIL library says the same
    assert dxil["entries"] == lib["entries"]
    assert {r["name"]: r["stages"] for r in dxil["resources"]} == stages
