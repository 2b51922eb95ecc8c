/* Host runtime for executing DXIL compute shaders with lli (see dxil_exec.py).
 *
 * dxil_exec.py renames the shader entry to __dxil_entry, turns every `dx.op.*` declaration it
 * knows into a definition that calls the rt_* functions below, and links this file in.
 * Threads run one after another, so group-sync barriers are refused rather than mis-run.
 *
 * argv[1] is a directory holding spec.txt:
 *   gx gy gz tx ty tz nslots
 *   per slot:  kind stride size fmt width height depth layers mips filter address mipfilter border compare maxlod
 *              counter
 *              (data in buf<i>.bin, written back; fmt 0 = plain memory, else a FORMATS index; the sampler
 *              fields are used by sampler slots, kind 14)
 *   nranges     then per range: class rangeId lower count slot space
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint8_t *data;
    uint32_t size, kind, stride;
    uint32_t fmt, width, height, depth, layers, mips;   /* typed buffers and textures */
    uint32_t filter, address, mipfilter, border, compare; /* samplers */
    float max_lod;
    uint32_t counter; /* the hidden counter of a structured UAV (bufferUpdateCounter) */
} Res;

typedef struct {
    int cls, range, lower, count, slot, space;
} Range;

enum { K_TYPED = 10, K_RAW = 11, K_STRUCT = 12, K_CBUF = 13, K_SAMPLER = 14, K_TBUF = 15 };
/* ResourceKind shapes of textures */
enum { S_1D = 1, S_2D = 2, S_3D = 4, S_CUBE = 5, S_1D_ARRAY = 6, S_2D_ARRAY = 7, S_CUBE_ARRAY = 9 };

static Res *slots;
static int nslots;
static Range *ranges;
static int nranges;
static uint32_t tid[3], gid[3], gtid[3], ntid[3];
static uint8_t scratch[16]; /* out-of-bounds accesses: reads give 0, writes vanish */

extern void __dxil_entry(void);

static void die(const char *what, int a, int b, int c) {
    fprintf(stderr, "dxop runtime: %s (%d, %d, %d)\n", what, a, b, c);
    exit(3);
}

void *rt_create_handle(int cls, int range, int index) {
    for (int i = 0; i < nranges; i++) {
        const Range *r = &ranges[i];
        if (r->cls == cls && r->range == range && index >= r->lower && index - r->lower < r->count)
            return &slots[r->slot + index - r->lower];
    }
    die("no buffer bound for class/range/index", cls, range, index);
    return 0;
}

/* SM 6.6 createHandleFromBinding: the resource by class, space and absolute register. */
void *rt_create_handle_binding(int cls, int space, int index) {
    for (int i = 0; i < nranges; i++) {
        const Range *r = &ranges[i];
        if (r->cls == cls && r->space == space && index >= r->lower && index - r->lower < r->count)
            return &slots[r->slot + index - r->lower];
    }
    die("no buffer bound for class/space/register", cls, space, index);
    return 0;
}

static uint8_t *texel_at(const Res *r, int mip, int c0, int c1, int c2);
void *rt_addr(Res *r, uint32_t index, uint32_t offset, uint32_t comp_byte, uint32_t nbytes);

/* The 32-bit cell an atomic on (c0, c1, c2) touches: a texel of a texture or typed buffer (r32ui/r32i),
 * else a buffer element (index, byte offset). */
void *rt_atomic_addr(Res *r, uint32_t c0, uint32_t c1, uint32_t c2) {
    if (r->kind == K_TYPED && r->fmt)
        return rt_addr(r, c0, 0, 0, 4);
    if (r->kind >= S_1D && r->kind <= S_CUBE_ARRAY && r->fmt) {
        uint8_t *p = texel_at(r, 0, (int)c0, (int)c1, (int)c2);
        if (!p) { memset(scratch, 0, sizeof scratch); return scratch; }
        return p;
    }
    return rt_addr(r, c0, c1, 0, 4);
}

/* Atomics: threads run one at a time, so a read-modify-write is atomic. */
uint32_t rt_atomic_i32(uint32_t *p, int op, uint32_t v) {
    uint32_t old = *p;
    switch (op) {
    case 0: *p = old + v; break;
    case 1: *p = old & v; break;
    case 2: *p = old | v; break;
    case 3: *p = old ^ v; break;
    case 4: *p = (int32_t)old < (int32_t)v ? old : v; break;
    case 5: *p = (int32_t)old > (int32_t)v ? old : v; break;
    case 6: *p = old < v ? old : v; break;
    case 7: *p = old > v ? old : v; break;
    case 8: *p = v; break;
    default: die("unsupported atomic op", op, 0, 0);
    }
    return old;
}

/* The 64-bit cell of an atomic (SM 6.6: structured elements, raw byte offsets, and the rg32ui texel of a
 * typed buffer or texture, which D3D's 64-bit typed atomics work on). */
void *rt_atomic_addr64(Res *r, uint32_t c0, uint32_t c1, uint32_t c2) {
    if (r->kind >= S_1D && r->kind <= S_CUBE_ARRAY && r->fmt) {
        uint8_t *p = texel_at(r, 0, (int)c0, (int)c1, (int)c2);
        if (!p) { memset(scratch, 0, sizeof scratch); return scratch; }
        return p;
    }
    return rt_addr(r, c0, r->kind == K_TYPED ? 0 : c1, 0, 8);
}

uint64_t rt_atomic_i64(uint64_t *p, int op, uint64_t v) {
    uint64_t old = *p;
    switch (op) {
    case 0: *p = old + v; break;
    case 1: *p = old & v; break;
    case 2: *p = old | v; break;
    case 3: *p = old ^ v; break;
    case 4: *p = (int64_t)old < (int64_t)v ? old : v; break;
    case 5: *p = (int64_t)old > (int64_t)v ? old : v; break;
    case 6: *p = old < v ? old : v; break;
    case 7: *p = old > v ? old : v; break;
    case 8: *p = v; break;
    default: die("unsupported atomic op", op, 0, 0);
    }
    return old;
}

uint64_t rt_cmpxchg_i64(uint64_t *p, uint64_t cmp, uint64_t v) {
    uint64_t old = *p;
    if (old == cmp)
        *p = v;
    return old;
}

/* bufferUpdateCounter: +1 returns the value before the increment, -1 the value after the decrement. */
uint32_t rt_update_counter(Res *r, int step) {
    if (step > 0) return r->counter++;
    return --r->counter;
}

uint32_t rt_cmpxchg_i32(uint32_t *p, uint32_t cmp, uint32_t v) {
    uint32_t old = *p;
    if (old == cmp)
        *p = v;
    return old;
}

uint64_t rt_unary_i64(int op, uint64_t x) {
    if (op == 30) { /* Bfrev */
        uint64_t r = 0;
        for (int i = 0; i < 64; i++) r |= ((x >> i) & 1u) << (63 - i);
        return r;
    }
    die("unsupported unary.i64 opcode", op, 0, 0);
    return 0;
}

/* 64-bit bit operations (unaryBits.i64): counts are 32-bit results */
uint32_t rt_unaryBits_i64(int op, uint64_t x) {
    switch (op) {
    case 31: return (uint32_t)__builtin_popcountll(x);
    case 32: return x ? (uint32_t)__builtin_ctzll(x) : 0xFFFFFFFFu;
    case 33: return x ? (uint32_t)__builtin_clzll(x) : 0xFFFFFFFFu;
    case 34: {
        uint64_t y = (x >> 63) ? ~x : x;
        return y ? (uint32_t)__builtin_clzll(y) : 0xFFFFFFFFu;
    }
    }
    die("unsupported unaryBits.i64 opcode", op, 0, 0);
    return 0;
}

/* ---- texel formats (index = harness format code; the names are vulkan_runner.TEXEL_SIZES keys) */

enum { C_F32, C_U32, C_I32, C_UNORM8, C_SNORM8, C_F16 };
typedef struct { int ncomp, ctype; } Format;
static const Format FORMATS[] = {
    {0, 0},          /* 0: plain memory */
    {4, C_UNORM8},   /* 1 rgba8 */
    {1, C_F32},      /* 2 r32f */
    {2, C_F32},      /* 3 rg32f */
    {4, C_F32},      /* 4 rgba32f */
    {1, C_U32},      /* 5 r32ui */
    {1, C_I32},      /* 6 r32i */
    {4, C_U32},      /* 7 rgba32ui */
    {4, C_I32},      /* 8 rgba32i */
    {1, C_F32},      /* 9 d32f */
    {2, C_U32},      /* 10 rg32ui */
    {1, C_UNORM8},   /* 11 r8 */
    {4, C_SNORM8},   /* 12 rgba8_snorm */
    {1, C_F16},      /* 13 r16f */
    {4, C_F16},      /* 14 rgba16f */
};

static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float bitsf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t texel_size(const Res *r) {
    const Format *f = &FORMATS[r->fmt];
    return (uint32_t)f->ncomp * (f->ctype == C_UNORM8 || f->ctype == C_SNORM8 ? 1u : f->ctype == C_F16 ? 2u : 4u);
}

/* IEEE half <-> float by bits (the interpreter has no half arithmetic).  A store rounds toward zero, as
 * lavapipe's image stores do (Vulkan allows either rounding; finite values past 65504 give the largest
 * half), so the two runs can be compared bit for bit. */
static float half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1f) return bitsf(sign | 0x7f800000u | (m << 13));
    if (e == 0) return bitsf(sign) + (sign ? -1.0f : 1.0f) * (float)m * (1.0f / 16777216.0f);
    return bitsf(sign | ((e + 112u) << 23) | (m << 13));
}

static uint16_t float_to_half(float x) {
    uint32_t u = fbits(x), sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);
    if (a >= 0x47800000u) return (uint16_t)(sign | (a == 0x7f800000u ? 0x7c00u : 0x7bffu));
    if (a < 0x38800000u) return (uint16_t)(sign | (uint32_t)(bitsf(a) * 16777216.0f));   /* subnormal */
    return (uint16_t)(sign | ((a - 0x38000000u) >> 13));
}

/* Component k of the texel at p as 32 bits (float bits for float/unorm formats); missing: 0, alpha 1. */
static uint32_t texel_get(const Res *r, const uint8_t *p, int k) {
    const Format *f = &FORMATS[r->fmt];
    int is_float = f->ctype != C_U32 && f->ctype != C_I32;
    if (!p || k >= f->ncomp) return k == 3 && p ? (is_float ? fbits(1.0f) : 1u) : 0u;
    if (f->ctype == C_UNORM8) return fbits(p[k] * (1.0f / 255.0f)); /* as lavapipe converts */
    if (f->ctype == C_SNORM8) { float s = (int8_t)p[k] * (1.0f / 127.0f); return fbits(s < -1.0f ? -1.0f : s); }
    if (f->ctype == C_F16) { uint16_t h; memcpy(&h, p + 2 * k, 2); return fbits(half_to_float(h)); }
    uint32_t v;
    memcpy(&v, p + 4 * k, 4);
    return v;
}

static void texel_put(const Res *r, uint8_t *p, int k, uint32_t bits) {
    const Format *f = &FORMATS[r->fmt];
    if (!p || k >= f->ncomp) return;
    if (f->ctype == C_UNORM8) {
        float x = bitsf(bits);
        x = x != x ? 0.0f : (x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x));
        p[k] = (uint8_t)floorf(x * 255.0f + 0.5f);
    } else if (f->ctype == C_SNORM8) {
        float x = bitsf(bits);
        x = x != x ? 0.0f : (x < -1.0f ? -1.0f : (x > 1.0f ? 1.0f : x));
        p[k] = (uint8_t)(int8_t)floorf(x * 127.0f + 0.5f);
    } else if (f->ctype == C_F16) {
        uint16_t h = float_to_half(bitsf(bits));
        memcpy(p + 2 * k, &h, 2);
    } else {
        memcpy(p + 4 * k, &bits, 4);
    }
}

static uint32_t mip_dim(uint32_t d, int mip) { d >>= mip; return d ? d : 1; }

/* Texel (x, y, z, layer) of mip level `mip` in the harness image layout (mip by mip, layer by layer,
 * each depth x height x width); NULL when outside the image (D3D: loads give 0, stores vanish). */
static uint8_t *texel_ptr(const Res *r, int mip, int x, int y, int z, int layer) {
    if (mip < 0 || (uint32_t)mip >= r->mips) return NULL;
    uint64_t off = 0, ts = texel_size(r);
    for (int m = 0; m < mip; m++)
        off += (uint64_t)mip_dim(r->width, m) * mip_dim(r->height, m) * mip_dim(r->depth, m) * r->layers * ts;
    uint32_t w = mip_dim(r->width, mip), h = mip_dim(r->height, mip), d = mip_dim(r->depth, mip);
    if (x < 0 || y < 0 || z < 0 || layer < 0 || (uint32_t)x >= w || (uint32_t)y >= h || (uint32_t)z >= d ||
        (uint32_t)layer >= r->layers)
        return NULL;
    off += ((((uint64_t)layer * d + z) * h + y) * w + x) * ts;
    return off + ts <= r->size ? r->data + off : NULL;
}

/* Texture coordinates (c0, c1, c2) of a load/store split by shape into x, y, z, layer. */
static uint8_t *texel_at(const Res *r, int mip, int c0, int c1, int c2) {
    switch (r->kind) {
    case S_1D: return texel_ptr(r, mip, c0, 0, 0, 0);
    case S_1D_ARRAY: return texel_ptr(r, mip, c0, 0, 0, c1);
    case S_2D: return texel_ptr(r, mip, c0, c1, 0, 0);
    case S_2D_ARRAY: return texel_ptr(r, mip, c0, c1, 0, c2);
    case S_3D: return texel_ptr(r, mip, c0, c1, c2, 0);
    }
    die("texture shape not supported by the runtime", (int)r->kind, 0, 0);
    return NULL;
}

/* Address of component `comp_byte` of element (index, offset); D3D out-of-bounds rules. */
void *rt_addr(Res *r, uint32_t index, uint32_t offset, uint32_t comp_byte, uint32_t nbytes) {
    uint64_t a;
    switch (r->kind) {
    case K_STRUCT: a = (uint64_t)index * r->stride + offset; break;
    case K_RAW: a = index; break;
    case K_CBUF: case K_TBUF: a = (uint64_t)index * 16; break;
    case K_TYPED: a = (uint64_t)index * (r->fmt ? texel_size(r) : r->stride); break;
    default: a = (uint64_t)index * r->stride; break;
    }
    a += comp_byte;
    if (a + nbytes > r->size) {
        memset(scratch, 0, sizeof scratch);
        return scratch;
    }
    return r->data + a;
}

uint32_t rt_thread_id(int c) { return tid[c]; }
uint32_t rt_group_id(int c) { return gid[c]; }
uint32_t rt_thread_id_in_group(int c) { return gtid[c]; }
uint32_t rt_flattened_thread_id_in_group(void) { return (gtid[2] * ntid[1] + gtid[1]) * ntid[0] + gtid[0]; }

void rt_barrier(int op, int mode) {
    if ((mode & 1) && ntid[0] * ntid[1] * ntid[2] > 1)
        die("group-sync barrier cannot run with serial threads", op, mode, 0);
}

/* ---- mesh shaders: what each group outputs, captured per group and written to mesh.bin (dxil_exec.
 * run_dxil_mesh): the counts, the primitives' indices, and the vertex / primitive signature values
 * (element < MESH_SIGS, row < MESH_ROWS); the payload is read from payload.bin when it exists */
enum { MESH_MAX = 256, MESH_SIGS = 8, MESH_ROWS = 4 };
#define MESH_ATTR_WORDS ((size_t)MESH_MAX * MESH_SIGS * MESH_ROWS * 4)
#define MESH_GROUP_WORDS (2 + (size_t)MESH_MAX * 3 + 2 * MESH_ATTR_WORDS)
static uint32_t ngroups[3];
static uint32_t *mesh_out;
static uint8_t mesh_payload[16384];

static uint32_t *mesh_group(void) {
    if (!mesh_out) mesh_out = calloc(MESH_GROUP_WORDS * ngroups[0] * ngroups[1] * ngroups[2], 4);
    return mesh_out + MESH_GROUP_WORDS * ((gid[2] * ngroups[1] + gid[1]) * ngroups[0] + gid[0]);
}

void rt_mesh_counts(int op, uint32_t vertices, uint32_t primitives) {
    uint32_t *g = mesh_group();
    g[0] = vertices;
    g[1] = primitives;
    (void)op;
}

void rt_mesh_indices(int op, uint32_t prim, uint32_t a, uint32_t b, uint32_t c) {
    if (prim >= MESH_MAX) die("emitIndices: primitive index out of range", op, (int)prim, 0);
    uint32_t *g = mesh_group() + 2 + 3 * prim;
    g[0] = a;
    g[1] = b;
    g[2] = c;
}

void rt_mesh_store(int primitive, uint32_t sig, uint32_t row, uint32_t col, uint32_t bits, uint32_t index) {
    if (sig >= MESH_SIGS || row >= MESH_ROWS || col >= 4 || index >= MESH_MAX)
        die("mesh output store out of the captured range", (int)sig, (int)row, (int)index);
    uint32_t *g = mesh_group() + 2 + MESH_MAX * 3 + (primitive ? MESH_ATTR_WORDS : 0);
    g[((index * MESH_SIGS + sig) * MESH_ROWS + row) * 4 + col] = bits;
}

void *rt_mesh_payload(void) { return mesh_payload; }

/* ---- typed resources: bufferLoad/bufferStore (typed buffers go through the format), textures */

uint32_t rt_load32(Res *r, uint32_t index, uint32_t offset, uint32_t k) {
    if (r->kind == K_TYPED && r->fmt) {
        uint64_t a = (uint64_t)index * texel_size(r);
        return texel_get(r, a + texel_size(r) <= r->size ? r->data + a : NULL, (int)k);
    }
    uint32_t v;
    memcpy(&v, rt_addr(r, index, offset, 4 * k, 4), 4);
    return v;
}

void rt_store32(Res *r, uint32_t index, uint32_t offset, uint32_t k, uint32_t bits) {
    if (r->kind == K_TYPED && r->fmt) {
        uint64_t a = (uint64_t)index * texel_size(r);
        texel_put(r, a + texel_size(r) <= r->size ? r->data + a : NULL, (int)k, bits);
        return;
    }
    memcpy(rt_addr(r, index, offset, 4 * k, 4), &bits, 4);
}

/* textureLoad: UAV textures have no mip argument (it is undef, given as 0 by the shim). */
uint32_t rt_tex_load32(Res *r, int mip, int c0, int c1, int c2, int o0, int o1, int o2, int k) {
    int x = c0 + o0, y = c1 + (r->kind == S_1D_ARRAY ? 0 : o1), z = c2 + (r->kind == S_3D ? o2 : 0);
    return texel_get(r, texel_at(r, mip, x, y, z), k);
}

void rt_tex_store32(Res *r, int c0, int c1, int c2, int k, uint32_t bits) {
    texel_put(r, texel_at(r, 0, c0, c1, c2), k, bits);
}

/* getDimensions: buffers give their element count (raw: bytes); textures width, height, depth or
 * layers at `mip`, and the mip count in w. */
uint32_t rt_dims(Res *r, int mip, int k) {
    switch (r->kind) {
    case K_RAW: return k == 0 ? r->size : 0;
    case K_STRUCT: return k == 0 ? r->size / r->stride : k == 1 ? r->stride : 0;
    case K_TYPED: return k == 0 ? (r->fmt ? r->size / texel_size(r) : r->size / r->stride) : 0;
    }
    uint32_t v[4] = {mip_dim(r->width, mip), 0, 0, r->mips};
    switch (r->kind) {
    case S_1D_ARRAY: v[1] = r->layers; break;
    case S_2D: v[1] = mip_dim(r->height, mip); break;
    case S_2D_ARRAY: v[1] = mip_dim(r->height, mip); v[2] = r->layers; break;
    case S_3D: v[1] = mip_dim(r->height, mip); v[2] = mip_dim(r->depth, mip); break;
    case S_1D: break;
    case S_CUBE: v[1] = mip_dim(r->height, mip); break;
    case S_CUBE_ARRAY: v[1] = mip_dim(r->height, mip); v[2] = r->layers / 6; break;
    default: die("getDimensions: texture shape not supported by the runtime", (int)r->kind, 0, 0);
    }
    return v[k];
}

/* ---- sampling (Vulkan rules as lavapipe applies them, no anisotropy): filter nearest 0 / linear 1,
 * address clamp 0 / wrap 1 / mirror 2 / border 3, border transparent black 0 / opaque black 1 /
 * opaque white 2, compare: 0 none, else 1 + VkCompareOp. */

static int wrap_coord(const Res *s, int i, int n, int *outside) {
    *outside = 0;
    switch (s->address) {
    case 1: return ((i % n) + n) % n;
    case 2: {
        int p = ((i % (2 * n)) + 2 * n) % (2 * n);
        return p < n ? p : 2 * n - 1 - p;
    }
    case 3: if (i < 0 || i >= n) *outside = 1; return i;
    default: return i < 0 ? 0 : (i >= n ? n - 1 : i);
    }
}

static float border_comp(const Res *s, int k) {
    if (s->border == 0) return 0.0f;
    if (k == 3) return 1.0f;
    return s->border == 2 ? 1.0f : 0.0f;
}

static int compare_pass(int op, float ref, float texel) {
    switch (op) {
    case 0: return 0;                 /* never */
    case 1: return ref < texel;
    case 2: return ref == texel;
    case 3: return ref <= texel;
    case 4: return ref > texel;
    case 5: return ref != texel;
    case 6: return ref >= texel;
    default: return 1;                /* always */
    }
}

/* Component k of one texel for filtering (as float, after address mode and depth compare). */
static float fetch(const Res *t, const Res *s, int mip, int x, int y, int z, int layer, int k, float ref) {
    uint32_t w = mip_dim(t->width, mip), h = mip_dim(t->height, mip), d = mip_dim(t->depth, mip);
    int ox, oy, oz;
    x = wrap_coord(s, x, (int)w, &ox);
    y = wrap_coord(s, y, (int)h, &oy);
    z = wrap_coord(s, z, (int)d, &oz);
    if (ox || oy || oz) return border_comp(s, s->compare ? 0 : k);
    const uint8_t *p = texel_ptr(t, mip, x, y, z, layer);
    int comp = s->compare ? 0 : k;
    uint32_t bits = texel_get(t, p, comp);
    const Format *f = &FORMATS[t->fmt];
    float v = (f->ctype == C_U32) ? (float)bits : (f->ctype == C_I32) ? (float)(int32_t)bits : bitsf(bits);
    if (s->compare) return compare_pass((int)s->compare - 1, ref, v) ? 1.0f : 0.0f;
    return v;
}

static float frac_weight(float f) { return f - floorf(f); }
static int g_off[3]; /* immediate texel offsets of the sample being taken */

static float sample_mip(const Res *t, const Res *s, int mip, float u, float v, float wc, int layer, int k, float ref) {
    int dims = (t->kind == S_1D || t->kind == S_1D_ARRAY) ? 1 : (t->kind == S_3D ? 3 : 2);
    float su = u * mip_dim(t->width, mip), sv = v * mip_dim(t->height, mip), sw = wc * mip_dim(t->depth, mip);
    if (s->filter == 0) {
        return fetch(t, s, mip, (int)floorf(su) + g_off[0], dims > 1 ? (int)floorf(sv) + g_off[1] : 0,
                     dims > 2 ? (int)floorf(sw) + g_off[2] : 0, layer, k, ref);
    }
    float a = su - 0.5f, b = sv - 0.5f, c = sw - 0.5f;
    int x0 = (int)floorf(a), y0 = (int)floorf(b), z0 = (int)floorf(c);
    float fa = frac_weight(a), fb = dims > 1 ? frac_weight(b) : 0.0f, fc = dims > 2 ? frac_weight(c) : 0.0f;
    x0 += g_off[0];
    y0 = dims < 2 ? 0 : y0 + g_off[1];
    z0 = dims < 3 ? 0 : z0 + g_off[2];
    float acc = 0.0f;
    for (int dz = 0; dz < (dims > 2 ? 2 : 1); dz++)
        for (int dy = 0; dy < (dims > 1 ? 2 : 1); dy++)
            for (int dx = 0; dx < 2; dx++) {
                float wgt = (dx ? fa : 1 - fa) * (dims > 1 ? (dy ? fb : 1 - fb) : 1.0f) *
                            (dims > 2 ? (dz ? fc : 1 - fc) : 1.0f);
                if (wgt != 0.0f) acc += wgt * fetch(t, s, mip, x0 + dx, y0 + dy, z0 + dz, layer, k, ref);
            }
    return acc;
}

/* The layer of an array coordinate: rounded to nearest, ties to even (Vulkan's RNE; lavapipe does so too). */
static int array_layer(const Res *t, float c) {
    int l = (int)rintf(c);
    return l < 0 ? 0 : ((uint32_t)l >= t->layers ? (int)t->layers - 1 : l);
}

/* Cube direction -> face (layer) and face coordinates (Vulkan 15.6.4 / D3D: same table); cube maps clamp
 * to the face edge (no seamless filtering across faces). */
static int cube_face(float x, float y, float z, float *s, float *t) {
    float ax = fabsf(x), ay = fabsf(y), az = fabsf(z), sc, tc, ma;
    int face;
    if (ax >= ay && ax >= az) { face = x >= 0 ? 0 : 1; sc = x >= 0 ? -z : z; tc = -y; ma = ax; }
    else if (ay >= az) { face = y >= 0 ? 2 : 3; sc = x; tc = y >= 0 ? z : -z; ma = ay; }
    else { face = z >= 0 ? 4 : 5; sc = z >= 0 ? x : -x; tc = -y; ma = az; }
    *s = 0.5f * (sc / ma + 1.0f);
    *t = 0.5f * (tc / ma + 1.0f);
    return face;
}

static float sample_lod(const Res *t, const Res *s, float c0, float c1, float c2, float lod, int k, float ref);

/* A cube direction (and cube-array index c3) as a 2-D array view of the faces: the view, a clamping sampler,
 * the face coordinates (u, v); returns the layer (cube * 6 + face). */
static float cube_as_array(const Res *t, const Res *s, float c0, float c1, float c2, float c3, Res *face_view,
                           Res *edge, float *u, float *v) {
    *face_view = *t;
    *edge = *s;
    int face = cube_face(c0, c1, c2, u, v);
    int cube = t->kind == S_CUBE_ARRAY ? (int)rintf(c3) : 0;
    int ncubes = (int)t->layers / 6;
    cube = cube < 0 ? 0 : (cube >= ncubes ? ncubes - 1 : cube);
    face_view->kind = S_2D_ARRAY;
    edge->address = 0;
    return (float)(cube * 6 + face);
}

static float sample_cube(const Res *t, const Res *s, float c0, float c1, float c2, float c3, float lod, int k,
                         float ref) {
    Res face_view, edge;
    float u, v, layer = cube_as_array(t, s, c0, c1, c2, c3, &face_view, &edge, &u, &v);
    return sample_lod(&face_view, &edge, u, v, layer, lod, k, ref);
}

static float sample_lod(const Res *t, const Res *s, float c0, float c1, float c2, float lod, int k, float ref) {
    if (t->kind != S_1D && t->kind != S_1D_ARRAY && t->kind != S_2D && t->kind != S_2D_ARRAY && t->kind != S_3D)
        die("sampling: texture shape not supported by the runtime", (int)t->kind, 0, 0);
    int layer = t->kind == S_1D_ARRAY ? array_layer(t, c1) : t->kind == S_2D_ARRAY ? array_layer(t, c2) : 0;
    float v = t->kind == S_1D_ARRAY ? 0.0f : c1, w = t->kind == S_3D ? c2 : 0.0f;
    float maxl = (float)(t->mips - 1);
    if (s->max_lod < maxl) maxl = s->max_lod;
    if (lod != lod || lod < 0.0f) lod = 0.0f;
    if (lod > maxl) lod = maxl;
    if (s->mipfilter == 0) {
        int m = (int)floorf(lod + 0.5f);  /* Vulkan: nearest mip is round(lod), rounding .5 up */
        return sample_mip(t, s, m, c0, v, w, layer, k, ref);
    }
    int m0 = (int)floorf(lod);
    float f = lod - m0;
    float a = sample_mip(t, s, m0, c0, v, w, layer, k, ref);
    if (f == 0.0f || m0 + 1 > (int)maxl) return a;
    return a * (1 - f) + f * sample_mip(t, s, m0 + 1, c0, v, w, layer, k, ref);
}

/* sampleLevel / sampleCmpLevelZero / sampleGrad: one component (4 calls per sample; the runtime is serial). */
void rt_sample_offsets(int o0, int o1, int o2) { g_off[0] = o0; g_off[1] = o1; g_off[2] = o2; }

static int is_cube(const Res *t) { return t->kind == S_CUBE || t->kind == S_CUBE_ARRAY; }

float rt_sample_level(Res *t, Res *s, float c0, float c1, float c2, float c3, float lod, int k) {
    if (is_cube(t)) return sample_cube(t, s, c0, c1, c2, c3, lod, k, 0.0f);
    return sample_lod(t, s, c0, c1, c2, lod, k, 0.0f);
}

float rt_sample_cmp(Res *t, Res *s, float c0, float c1, float c2, float c3, float ref) {
    if (!s->compare) die("SampleCmp with a sampler that has no compare op", 0, 0, 0);
    if (is_cube(t)) return sample_cube(t, s, c0, c1, c2, c3, 0.0f, 0, ref);
    return sample_lod(t, s, c0, c1, c2, 0.0f, 0, ref);
}

float rt_sample_cmp_level(Res *t, Res *s, float c0, float c1, float c2, float c3, float ref, float lod) {
    if (!s->compare) die("SampleCmpLevel with a sampler that has no compare op", 0, 0, 0);
    if (is_cube(t)) return sample_cube(t, s, c0, c1, c2, c3, lod, 0, ref);
    return sample_lod(t, s, c0, c1, c2, lod, 0, ref);
}

/* The level of detail of explicit gradients: log2 of the longer footprint axis in texels of level 0, raised to
 * the clamp (the smallest level read; undef when not given: NaN or 0). */
static float grad_lod(const Res *t, float dx0, float dx1, float dx2, float dy0, float dy1, float dy2, float clamp) {
    float w = (float)t->width, h = (float)t->height, d = (float)t->depth;
    float lx = sqrtf(dx0 * w * dx0 * w + dx1 * h * dx1 * h + dx2 * d * dx2 * d);
    float ly = sqrtf(dy0 * w * dy0 * w + dy1 * h * dy1 * h + dy2 * d * dy2 * d);
    float m = lx > ly ? lx : ly;
    float lod = m > 0.0f ? log2f(m) : 0.0f;
    return clamp > lod ? clamp : lod;
}

float rt_sample_grad(Res *t, Res *s, float c0, float c1, float c2, float dx0, float dx1, float dx2,
                     float dy0, float dy1, float dy2, float clamp, int k) {
    return sample_lod(t, s, c0, c1, c2, grad_lod(t, dx0, dx1, dx2, dy0, dy1, dy2, clamp), k, 0.0f);
}

float rt_sample_cmp_grad(Res *t, Res *s, float c0, float c1, float c2, float ref, float dx0, float dx1, float dx2,
                         float dy0, float dy1, float dy2, float clamp) {
    if (!s->compare) die("SampleCmpGrad with a sampler that has no compare op", 0, 0, 0);
    return sample_lod(t, s, c0, c1, c2, grad_lod(t, dx0, dx1, dx2, dy0, dy1, dy2, clamp), 0, ref);
}

/* Texel k of the 2x2 footprint of a bilinear sample at mip 0, in the D3D order (-,+), (+,+), (+,-), (-,-) of
 * (x, y) relative to the sample point: component `channel`, or (a comparison sampler) the comparison with ref. */
static float gather_texel(Res *t, Res *s, float c0, float c1, float c2, int channel, float ref, int k);

/* A cube's gather: the face's 2-D footprint (clamped to the face: no filtering across its edges). */
static float gather_cube(Res *t, Res *s, float c0, float c1, float c2, float c3, int channel, float ref, int k) {
    Res face_view, edge;
    float u, v, layer = cube_as_array(t, s, c0, c1, c2, c3, &face_view, &edge, &u, &v);
    return gather_texel(&face_view, &edge, u, v, layer, channel, ref, k);
}

static float gather_texel(Res *t, Res *s, float c0, float c1, float c2, int channel, float ref, int k) {
    if (t->kind != S_2D && t->kind != S_2D_ARRAY) die("gather: texture shape not supported", (int)t->kind, 0, 0);
    int layer = t->kind == S_2D_ARRAY ? array_layer(t, c2) : 0;
    float a = c0 * t->width - 0.5f, b = c1 * t->height - 0.5f;
    int x0 = (int)floorf(a) + g_off[0], y0 = (int)floorf(b) + g_off[1];
    static const int dx[4] = {0, 1, 1, 0}, dy[4] = {1, 1, 0, 0};
    return fetch(t, s, 0, x0 + dx[k], y0 + dy[k], 0, layer, channel, ref);
}

float rt_gather(Res *t, Res *s, float c0, float c1, float c2, float c3, int channel, int k) {
    if (is_cube(t)) return gather_cube(t, s, c0, c1, c2, c3, channel, 0.0f, k);
    return gather_texel(t, s, c0, c1, c2, channel, 0.0f, k);
}

/* textureGatherCmp: the sampler's comparison of each footprint texel (its first component, as SampleCmp). */
float rt_gather_cmp(Res *t, Res *s, float c0, float c1, float c2, float c3, float ref, int k) {
    if (!s->compare) die("GatherCmp with a sampler that has no compare op", 0, 0, 0);
    if (is_cube(t)) return gather_cube(t, s, c0, c1, c2, c3, 0, ref, k);
    return gather_texel(t, s, c0, c1, c2, 0, ref, k);
}

/* ---- math op classes: rt_<class>_<overload>(opcode, args...) */

/* D3D saturate: NaN gives 0 (written so every comparison with NaN falls to 0) */
static float saturatef(float x) { return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; }

float rt_unary_f32(int op, float x) {
    switch (op) {
    case 6: return fabsf(x);
    case 7: return saturatef(x);
    case 12: return cosf(x);
    case 13: return sinf(x);
    case 14: return tanf(x);
    case 15: return acosf(x);
    case 16: return asinf(x);
    case 17: return atanf(x);
    case 18: return coshf(x);
    case 19: return sinhf(x);
    case 20: return tanhf(x);
    case 21: return exp2f(x);
    case 22: return x - floorf(x);
    case 23: return log2f(x);
    case 24: return sqrtf(x);
    case 25: return 1.0f / sqrtf(x);
    case 26: return nearbyintf(x);
    case 27: return floorf(x);
    case 28: return ceilf(x);
    case 29: return truncf(x);
    }
    die("unsupported unary.f32 opcode", op, 0, 0);
    return 0;
}

double rt_unary_f64(int op, double x) {
    switch (op) {
    case 6: return fabs(x);
    case 7: return x > 0.0 ? (x < 1.0 ? x : 1.0) : 0.0;
    case 24: return sqrt(x);
    case 26: return nearbyint(x);
    case 27: return floor(x);
    case 28: return ceil(x);
    case 29: return trunc(x);
    }
    die("unsupported unary.f64 opcode", op, 0, 0);
    return 0;
}

uint32_t rt_unary_i32(int op, uint32_t x) {
    if (op == 30) { /* Bfrev */
        uint32_t r = 0;
        for (int i = 0; i < 32; i++) r |= ((x >> i) & 1u) << (31 - i);
        return r;
    }
    die("unsupported unary.i32 opcode", op, 0, 0);
    return 0;
}

/* FirstbitHi/SHi count from the most significant bit (the HLSL front end converts); -1 if none. */
uint32_t rt_unaryBits_i32(int op, uint32_t x) {
    switch (op) {
    case 31: return (uint32_t)__builtin_popcount(x);
    case 32: return x ? (uint32_t)__builtin_ctz(x) : 0xFFFFFFFFu;
    case 33: return x ? (uint32_t)__builtin_clz(x) : 0xFFFFFFFFu;
    case 34: {
        uint32_t y = (x & 0x80000000u) ? ~x : x;
        return y ? (uint32_t)__builtin_clz(y) : 0xFFFFFFFFu;
    }
    }
    die("unsupported unaryBits.i32 opcode", op, 0, 0);
    return 0;
}

float rt_binary_f32(int op, float a, float b) {
    switch (op) {
    case 35: return fmaxf(a, b);
    case 36: return fminf(a, b);
    }
    die("unsupported binary.f32 opcode", op, 0, 0);
    return 0;
}

double rt_binary_f64(int op, double a, double b) {
    switch (op) {
    case 35: return fmax(a, b);
    case 36: return fmin(a, b);
    }
    die("unsupported binary.f64 opcode", op, 0, 0);
    return 0;
}

uint32_t rt_binary_i32(int op, uint32_t a, uint32_t b) {
    switch (op) {
    case 37: return (int32_t)a > (int32_t)b ? a : b;
    case 38: return (int32_t)a < (int32_t)b ? a : b;
    case 39: return a > b ? a : b;
    case 40: return a < b ? a : b;
    }
    die("unsupported binary.i32 opcode", op, 0, 0);
    return 0;
}

uint64_t rt_binary_i64(int op, uint64_t a, uint64_t b) {
    switch (op) {
    case 37: return (int64_t)a > (int64_t)b ? a : b;
    case 38: return (int64_t)a < (int64_t)b ? a : b;
    case 39: return a > b ? a : b;
    case 40: return a < b ? a : b;
    }
    die("unsupported binary.i64 opcode", op, 0, 0);
    return 0;
}

/* 16-bit overloads (-enable-16bit-types): computed in float / int32, which is exact for these operations */
uint16_t rt_binary_i16(int op, uint16_t a, uint16_t b) {
    switch (op) {
    case 37: return (int16_t)a > (int16_t)b ? a : b;
    case 38: return (int16_t)a < (int16_t)b ? a : b;
    case 39: return a > b ? a : b;
    case 40: return a < b ? a : b;
    }
    die("unsupported binary.i16 opcode", op, 0, 0);
    return 0;
}

_Float16 rt_binary_f16(int op, _Float16 a, _Float16 b) {
    switch (op) {
    case 35: return (_Float16)fmaxf((float)a, (float)b);
    case 36: return (_Float16)fminf((float)a, (float)b);
    }
    die("unsupported binary.f16 opcode", op, 0, 0);
    return 0;
}

_Float16 rt_unary_f16(int op, _Float16 h) {
    float x = (float)h;
    switch (op) {
    case 6: return (_Float16)fabsf(x);
    case 7: return (_Float16)(x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f);
    case 26: return (_Float16)nearbyintf(x);
    case 27: return (_Float16)floorf(x);
    case 28: return (_Float16)ceilf(x);
    case 29: return (_Float16)truncf(x);
    }
    die("unsupported unary.f16 opcode", op, 0, 0);
    return 0;
}

float rt_tertiary_f32(int op, float a, float b, float c) {
    if (op == 46) return a * b + c;
    die("unsupported tertiary.f32 opcode", op, 0, 0);
    return 0;
}

double rt_tertiary_f64(int op, double a, double b, double c) {
    if (op == 46) return a * b + c;
    if (op == 47) return fma(a, b, c);
    die("unsupported tertiary.f64 opcode", op, 0, 0);
    return 0;
}

uint32_t rt_tertiary_i32(int op, uint32_t a, uint32_t b, uint32_t c) {
    if (op == 48 || op == 49) return a * b + c; /* IMad / UMad: same bits mod 2^32 */
    die("unsupported tertiary.i32 opcode", op, 0, 0);
    return 0;
}

float rt_dot2_f32(int op, float a0, float a1, float b0, float b1) { return a0 * b0 + a1 * b1; }
float rt_dot3_f32(int op, float a0, float a1, float a2, float b0, float b1, float b2) {
    return a0 * b0 + a1 * b1 + a2 * b2;
}
float rt_dot4_f32(int op, float a0, float a1, float a2, float a3, float b0, float b1, float b2, float b3) {
    return a0 * b0 + a1 * b1 + a2 * b2 + a3 * b3;
}

/* ---- driver */

static FILE *open_in(const char *dir, const char *name, const char *mode) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, mode);
    if (!f) {
        fprintf(stderr, "dxop runtime: cannot open %s\n", path);
        exit(4);
    }
    return f;
}

static void buffer_io(const char *dir, int i, int write) {
    char name[64];
    snprintf(name, sizeof name, "buf%d.bin", i);
    FILE *f = open_in(dir, name, write ? "wb" : "rb");
    size_t n = write ? fwrite(slots[i].data, 1, slots[i].size, f) : fread(slots[i].data, 1, slots[i].size, f);
    if (n != slots[i].size) die("short buffer read/write", i, (int)n, (int)slots[i].size);
    fclose(f);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: lli module.bc DIR\n");
        return 2;
    }
    uint32_t ng[3];
    FILE *spec = open_in(argv[1], "spec.txt", "r");
    if (fscanf(spec, "%u %u %u %u %u %u %d", &ng[0], &ng[1], &ng[2], &ntid[0], &ntid[1], &ntid[2], &nslots) != 7)
        die("bad spec header", 0, 0, 0);
    slots = calloc((size_t)nslots + 1, sizeof *slots);
    for (int i = 0; i < nslots; i++) {
        Res *r = &slots[i];
        if (fscanf(spec, "%u %u %u %u %u %u %u %u %u %u %u %u %u %u %f", &r->kind, &r->stride, &r->size, &r->fmt,
                   &r->width, &r->height, &r->depth, &r->layers, &r->mips, &r->filter, &r->address, &r->mipfilter,
                   &r->border, &r->compare, &r->max_lod) != 15 || fscanf(spec, "%u", &r->counter) != 1)
            die("bad slot", i, 0, 0);
        if (r->fmt >= sizeof FORMATS / sizeof FORMATS[0]) die("bad texel format", i, (int)r->fmt, 0);
        slots[i].data = calloc(slots[i].size + 16, 1);
        buffer_io(argv[1], i, 0);
    }
    if (fscanf(spec, "%d", &nranges) != 1) die("bad range count", 0, 0, 0);
    ranges = calloc((size_t)nranges + 1, sizeof *ranges);
    for (int i = 0; i < nranges; i++) {
        Range *r = &ranges[i];
        if (fscanf(spec, "%d %d %d %d %d %d", &r->cls, &r->range, &r->lower, &r->count, &r->slot, &r->space) != 6)
            die("bad range", i, 0, 0);
    }
    fclose(spec);
    memcpy(ngroups, ng, sizeof ng);
    char path[4096];
    snprintf(path, sizeof path, "%s/payload.bin", argv[1]);
    FILE *pf = fopen(path, "rb");
    if (pf) {
        size_t got = fread(mesh_payload, 1, sizeof mesh_payload, pf);
        (void)got;
        fclose(pf);
    }
    for (gid[2] = 0; gid[2] < ng[2]; gid[2]++)
        for (gid[1] = 0; gid[1] < ng[1]; gid[1]++)
            for (gid[0] = 0; gid[0] < ng[0]; gid[0]++)
                for (gtid[2] = 0; gtid[2] < ntid[2]; gtid[2]++)
                    for (gtid[1] = 0; gtid[1] < ntid[1]; gtid[1]++)
                        for (gtid[0] = 0; gtid[0] < ntid[0]; gtid[0]++) {
                            for (int c = 0; c < 3; c++) tid[c] = gid[c] * ntid[c] + gtid[c];
                            __dxil_entry();
                        }
    for (int i = 0; i < nslots; i++) buffer_io(argv[1], i, 1);
    if (mesh_out) {
        FILE *mf = open_in(argv[1], "mesh.bin", "wb");
        size_t words = MESH_GROUP_WORDS * ng[0] * ng[1] * ng[2];
        if (fwrite(mesh_out, 4, words, mf) != words) die("short mesh output write", 0, 0, 0);
        fclose(mf);
    }
    return 0;
}
