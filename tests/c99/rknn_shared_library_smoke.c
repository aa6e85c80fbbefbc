/*
 * librknnrt.so as a C application links it: every function answers a bad call with an
 * RKNN error code (never a crash, never RKNN_SUCC), and a file that is not an svp-acl model
 * is refused with RKNN_ERR_MODEL_INVALID. Exit status 0 = pass.
 */
#include <stdio.h>
#include <string.h>

#include "rknn/rknn_api.h"
#include "rknn/rknn_custom_op.h"
#include "rknn/rknn_matmul_api.h"

static int failures = 0;

static void expect(int got, int want, const char* what);

/* The matmul library through the shared library: 1 x 32 x 32 int8, every A 1 and B 2, so
 * every C is 64; then its bad calls. */
static void matmul_smoke(void) {
    rknn_matmul_info info;
    rknn_matmul_io_attr io;
    rknn_matmul_ctx mm = 0;
    rknn_tensor_mem *a, *b, *c;
    memset(&info, 0, sizeof info);
    info.M = 1;
    info.K = 32;
    info.N = 32;
    info.type = RKNN_INT8_MM_INT8_TO_INT32;
    expect(rknn_matmul_create(&mm, &info, &io), RKNN_SUCC, "matmul create");
    a = rknn_create_mem(mm, io.A.size);
    b = rknn_create_mem(mm, io.B.size);
    c = rknn_create_mem(mm, io.C.size);
    if (a == NULL || b == NULL || c == NULL) {
        expect(0, 1, "matmul create_mem");
        return;
    }
    memset(a->virt_addr, 1, io.A.size);
    memset(b->virt_addr, 2, io.B.size);
    expect(rknn_matmul_set_io_mem(mm, a, &io.A), RKNN_SUCC, "matmul A");
    expect(rknn_matmul_set_io_mem(mm, b, &io.B), RKNN_SUCC, "matmul B");
    expect(rknn_matmul_set_io_mem(mm, c, &io.C), RKNN_SUCC, "matmul C");
    expect(rknn_matmul_run(mm), RKNN_SUCC, "matmul run");
    expect(((const int32_t*)c->virt_addr)[31], 64, "matmul C[0][31]");
    expect(rknn_destroy_mem(mm, a) | rknn_destroy_mem(mm, b) | rknn_destroy_mem(mm, c), RKNN_SUCC, "matmul mems");
    expect(rknn_matmul_destroy(mm), RKNN_SUCC, "matmul destroy");
    expect(rknn_matmul_run(mm), RKNN_ERR_CTX_INVALID, "matmul run destroyed");
    expect(rknn_matmul_create(NULL, &info, &io), RKNN_ERR_PARAM_INVALID, "matmul create NULL");
    expect(rknn_B_normal_layout_to_native_layout(NULL, NULL, 32, 32, &info), RKNN_ERR_PARAM_INVALID, "B native NULL");
}

static void expect(int got, int want, const char* what) {
    if (got != want) {
        fprintf(stderr, "FAIL %s: got %d, want %d\n", what, got, want);
        ++failures;
    }
}

int main(void) {
    rknn_context ctx = 0;
    rknn_context bogus = (rknn_context)0x1234;
    char junk[64];
    rknn_input in;
    rknn_output out;
    rknn_tensor_attr attr;
    rknn_tensor_mem mem;
    rknn_input_output_num num;
    rknn_custom_op op;
    rknn_custom_op_attr op_attr;

    memset(junk, 'x', sizeof junk);
    memset(&op, 0, sizeof op);
    memcpy(junk, "RKNN", 4);
    memset(&in, 0, sizeof in);
    memset(&out, 0, sizeof out);
    memset(&attr, 0, sizeof attr);
    memset(&mem, 0, sizeof mem);

    expect(rknn_init(NULL, junk, sizeof junk, 0, NULL), RKNN_ERR_PARAM_INVALID, "init NULL context");
    expect(rknn_init(&ctx, NULL, 16, 0, NULL), RKNN_ERR_PARAM_INVALID, "init NULL model");
    expect(rknn_init(&ctx, junk, sizeof junk, 0, NULL), RKNN_ERR_MODEL_INVALID, "init vendor-looking bytes");
    expect(rknn_init(&ctx, (void*)"/nonexistent/model.rknn", 0, 0, NULL), RKNN_ERR_MODEL_INVALID, "init missing path");
    expect(rknn_destroy(bogus), RKNN_ERR_CTX_INVALID, "destroy bogus");
    expect(rknn_query(bogus, RKNN_QUERY_IN_OUT_NUM, &num, sizeof num), RKNN_ERR_CTX_INVALID, "query bogus");
    expect(rknn_query(bogus, RKNN_QUERY_IN_OUT_NUM, NULL, sizeof num), RKNN_ERR_PARAM_INVALID, "query NULL info");
    expect(rknn_inputs_set(bogus, 1, &in), RKNN_ERR_CTX_INVALID, "inputs_set bogus");
    expect(rknn_run(bogus, NULL), RKNN_ERR_CTX_INVALID, "run bogus");
    expect(rknn_outputs_get(bogus, 1, &out, NULL), RKNN_ERR_CTX_INVALID, "outputs_get bogus");
    expect(rknn_outputs_release(bogus, 1, &out), RKNN_ERR_CTX_INVALID, "outputs_release bogus");
    expect(rknn_dup_context(&bogus, &ctx), RKNN_ERR_CTX_INVALID, "dup bogus");
    expect(rknn_set_core_mask(bogus, RKNN_NPU_CORE_0), RKNN_ERR_CTX_INVALID, "core mask bogus");
    expect(rknn_set_batch_core_num(bogus, 1), RKNN_ERR_CTX_INVALID, "batch core num bogus");
    expect(rknn_wait(bogus, NULL), RKNN_ERR_CTX_INVALID, "wait bogus");
    expect(rknn_destroy_mem(bogus, &mem), RKNN_ERR_CTX_INVALID, "destroy_mem bogus");
    expect(rknn_set_weight_mem(bogus, &mem), RKNN_ERR_CTX_INVALID, "weight mem bogus");
    expect(rknn_set_internal_mem(bogus, &mem), RKNN_ERR_CTX_INVALID, "internal mem bogus");
    expect(rknn_set_io_mem(bogus, &mem, &attr), RKNN_ERR_CTX_INVALID, "io mem bogus");
    expect(rknn_set_input_shape(bogus, &attr), RKNN_ERR_CTX_INVALID, "input shape bogus");
    expect(rknn_set_input_shapes(bogus, 1, &attr), RKNN_ERR_CTX_INVALID, "input shapes bogus");
    expect(rknn_mem_sync(bogus, &mem, RKNN_MEMORY_SYNC_TO_DEVICE), RKNN_ERR_CTX_INVALID, "mem_sync bogus");
    expect(rknn_register_custom_ops(bogus, &op, 1), RKNN_ERR_CTX_INVALID, "register_custom_ops bogus");
    expect(rknn_register_custom_ops(bogus, NULL, 1), RKNN_ERR_PARAM_INVALID, "register_custom_ops NULL op");
    memset(&op_attr, 0x5a, sizeof op_attr);
    rknn_custom_op_get_op_attr(NULL, "axis", &op_attr);
    expect((int)op_attr.n_elems, 0, "get_op_attr NULL op_ctx");
    rknn_custom_op_get_op_attr(NULL, NULL, NULL);
    expect(rknn_create_mem(bogus, 64) == NULL, 1, "create_mem bogus");
    expect(rknn_create_mem2(bogus, 64, RKNN_FLAG_MEMORY_CACHEABLE) == NULL, 1, "create_mem2 bogus");
    expect(rknn_create_mem_from_fd(bogus, 3, NULL, 64, 0) == NULL, 1, "create_mem_from_fd bogus");
    expect(rknn_create_mem_from_phys(bogus, 0x1000, NULL, 64) == NULL, 1, "create_mem_from_phys bogus");
    expect(rknn_create_mem_from_mb_blk(bogus, NULL, 0) == NULL, 1, "create_mem_from_mb_blk bogus");
    matmul_smoke();
    if (failures == 0) printf("rknn_shared_library_smoke: OK\n");
    return failures == 0 ? 0 : 1;
}
