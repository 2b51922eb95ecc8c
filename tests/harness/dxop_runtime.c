/* Host runtime for executing DXIL compute shaders with lli (see dxil_exec.py).
 *
 * dxil_exec.py renames the shader entry to __dxil_entry, turns every `dx.op.*` declaration it
 * knows into a definition that calls the rt_* functions below, and links this file in.
 * Threads run one after another, so group-sync barriers are refused rather than mis-run.
 *
 * argv[1] is a directory holding spec.txt:
 *   gx gy gz tx ty tz
 *   nslots      then per slot:  kind stride size      (data in buf<i>.bin, written back)
 *   nranges     then per range: class rangeId lower count slot
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint8_t *data;
    uint32_t size, kind, stride;
} Res;

typedef struct {
    int cls, range, lower, count, slot, space;
} Range;

enum { K_TYPED = 10, K_RAW = 11, K_STRUCT = 12, K_CBUF = 13 };

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

/* Address of component `comp_byte` of element (index, offset); D3D out-of-bounds rules. */
void *rt_addr(Res *r, uint32_t index, uint32_t offset, uint32_t comp_byte, uint32_t nbytes) {
    uint64_t a;
    switch (r->kind) {
    case K_STRUCT: a = (uint64_t)index * r->stride + offset; break;
    case K_RAW: a = index; break;
    case K_CBUF: a = (uint64_t)index * 16; break;
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

/* ---- math op classes: rt_<class>_<overload>(opcode, args...) */

static float saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }

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
    case 7: return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
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
        if (fscanf(spec, "%u %u %u", &slots[i].kind, &slots[i].stride, &slots[i].size) != 3) die("bad slot", i, 0, 0);
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
    return 0;
}
