/* Strict C99 hides POSIX (pipe, mkdtemp, getline, opendir, lstat): ask for POSIX.1-2008. */
#define _POSIX_C_SOURCE 200809L

#include "prof_sample_util.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acl/svp_acl_ext.h"

int g_sample_mismatches;

void sample_expect(int ok, const char *fmt, ...) {
    va_list ap;
    if (ok) return;
    g_sample_mismatches++;
    fprintf(stderr, "MISMATCH: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static void *read_whole_file(const char *path, size_t *size, int npu_memory) {
    FILE *f = fopen(path, "rb");
    void *data = NULL;
    long n;
    if (f == NULL) {
        fprintf(stderr, "cannot open %s (run make_sample_model <dir> first)\n", path);
        exit(1);
    }
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "cannot size %s\n", path);
        exit(1);
    }
    if (npu_memory) {
        /* The model image is handed to the NPU: it lives in device memory, as on the board. */
        CHECK(svp_acl_rt_malloc(&data, (size_t)n, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
    } else {
        data = malloc((size_t)n);
    }
    if (data == NULL || fread(data, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    fclose(f);
    *size = (size_t)n;
    return data;
}

static void read_layers(sample_model_t *m, const char *path) {
    FILE *f = fopen(path, "r");
    char unit[16];
    if (f == NULL) {
        fprintf(stderr, "cannot open %s (run a make_sample_model that writes the layer list)\n", path);
        exit(1);
    }
    m->num_layers = m->npu_layers = m->aicpu_layers = 0;
    for (;;) {
        sample_layer_t *l = &m->layers[m->num_layers];
        /* Widths keep each field inside its buffer (SVP_ACL_PROF_MAX_*_LEN - 1). */
        int n = fscanf(f, "%256s %64s %15s", l->name, l->type, unit);
        if (n == EOF) break;
        if (n != 3 || m->num_layers + 1 >= SAMPLE_MAX_LAYERS ||
            (strcmp(unit, "npu") != 0 && strcmp(unit, "aicpu") != 0)) {
            fprintf(stderr, "%s: malformed line %zu\n", path, m->num_layers + 1);
            exit(1);
        }
        l->aicpu = strcmp(unit, "aicpu") == 0;
        if (l->aicpu) {
            m->aicpu_layers++;
        } else {
            m->npu_layers++;
        }
        m->num_layers++;
    }
    fclose(f);
    if (m->num_layers == 0) {
        fprintf(stderr, "%s lists no layers\n", path);
        exit(1);
    }
}

void sample_model_load(sample_model_t *m, const char *dir) {
    char path[SAMPLE_PATH_MAX];
    size_t model_size, bytes, expected_bytes;
    uint32_t aicpu_tasks = 0;
    memset(m, 0, sizeof *m);
    snprintf(path, sizeof path, "%s/classifier.om", dir);
    m->model_mem = read_whole_file(path, &model_size, 1);
    CHECK(svp_acl_mdl_load_from_mem(m->model_mem, model_size, &m->id));
    snprintf(path, sizeof path, "%s/classifier.input.bin", dir);
    m->images = (float *)read_whole_file(path, &bytes, 0);
    snprintf(path, sizeof path, "%s/classifier.expected.bin", dir);
    m->expected = (float *)read_whole_file(path, &expected_bytes, 0);
    m->num_images = expected_bytes / (SAMPLE_CLASSES * sizeof(float));
    snprintf(path, sizeof path, "%s/classifier.layers.txt", dir);
    read_layers(m, path);

    m->desc = svp_acl_mdl_create_desc();
    if (m->desc == NULL) {
        fprintf(stderr, "svp_acl_mdl_create_desc failed: %s\n", svp_acl_get_recent_err_msg());
        exit(1);
    }
    CHECK(svp_acl_mdl_get_desc(m->desc, m->id));
    /* The layer list and the loaded model must describe the same network, or every count
     * derived from the list below would be meaningless. */
    CHECK(svp_acl_ext_get_mdl_aicpu_task_num(m->id, &aicpu_tasks));
    if (m->num_images == 0 || aicpu_tasks != m->aicpu_layers) {
        fprintf(stderr, "%s does not match the model (%u AI-CPU task(s), %zu AI-CPU layer(s) listed, %zu images)\n",
                dir, aicpu_tasks, m->aicpu_layers, m->num_images);
        exit(1);
    }
    printf("model %u loaded: %zu layers (%zu on the NPU, %zu on the AI-CPU), %zu test images\n", m->id,
           m->num_layers, m->npu_layers, m->aicpu_layers, m->num_images);
}

void sample_model_unload(sample_model_t *m) {
    CHECK(svp_acl_mdl_destroy_desc(m->desc));
    CHECK(svp_acl_mdl_unload(m->id));
    CHECK(svp_acl_rt_free(m->model_mem));
    free(m->images);
    free(m->expected);
    m->desc = NULL;
    m->model_mem = NULL;
    m->images = m->expected = NULL;
}

int sample_model_find_layer(const sample_model_t *m, const char *name) {
    size_t i;
    for (i = 0; i < m->num_layers; i++) {
        if (strcmp(m->layers[i].name, name) == 0) return (int)i;
    }
    return -1;
}

static void add_buffer(sample_io_t *io, svp_acl_mdl_dataset *dataset, size_t size, size_t stride) {
    void *mem = NULL;
    if (io->count == SAMPLE_MAX_BUFFERS) {
        fprintf(stderr, "the model has more than %d buffers\n", SAMPLE_MAX_BUFFERS);
        exit(1);
    }
    CHECK(svp_acl_rt_malloc(&mem, size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
    memset(mem, 0, size);
    io->memory[io->count] = mem;
    io->buffers[io->count] = svp_acl_create_data_buffer(mem, size, stride);
    if (io->buffers[io->count] == NULL) {
        fprintf(stderr, "svp_acl_create_data_buffer failed: %s\n", svp_acl_get_recent_err_msg());
        exit(1);
    }
    CHECK(svp_acl_mdl_add_dataset_buffer(dataset, io->buffers[io->count]));
    io->count++;
}

/* The vendor sample's dataset procedure (spec §2.2), with max batch 1: the data inputs at
 * the default stride, then task_buf (input m-2) and work_buf (input m-1), then the outputs. */
void sample_io_create(const sample_model_t *m, sample_io_t *io) {
    size_t n = svp_acl_mdl_get_num_inputs(m->desc);
    size_t i;
    memset(io, 0, sizeof *io);
    io->input = svp_acl_mdl_create_dataset();
    io->output = svp_acl_mdl_create_dataset();
    if (io->input == NULL || io->output == NULL || n < 2) {
        fprintf(stderr, "cannot create datasets (%zu model inputs): %s\n", n, svp_acl_get_recent_err_msg());
        exit(1);
    }
    for (i = 0; i < n - 2; i++) {
        add_buffer(io, io->input, svp_acl_mdl_get_input_size_by_index(m->desc, i),
                   svp_acl_mdl_get_input_default_stride(m->desc, i));
    }
    if (svp_acl_mdl_get_dataset_num_buffers(io->input) == n - 2) {
        add_buffer(io, io->input, svp_acl_mdl_get_input_size_by_index(m->desc, n - 2),
                   svp_acl_mdl_get_input_default_stride(m->desc, n - 2));
    }
    if (svp_acl_mdl_get_dataset_num_buffers(io->input) == n - 1) {
        add_buffer(io, io->input, svp_acl_mdl_get_input_size_by_index(m->desc, n - 1),
                   svp_acl_mdl_get_input_default_stride(m->desc, n - 1));
    }
    for (i = 0; i < svp_acl_mdl_get_num_outputs(m->desc); i++) {
        add_buffer(io, io->output, svp_acl_mdl_get_output_size_by_index(m->desc, i),
                   svp_acl_mdl_get_output_default_stride(m->desc, i));
    }
}

void sample_io_destroy(sample_io_t *io) {
    size_t i;
    for (i = 0; i < io->count; i++) {
        CHECK(svp_acl_destroy_data_buffer(io->buffers[i]));
        CHECK(svp_acl_rt_free(io->memory[i]));
    }
    CHECK(svp_acl_mdl_destroy_dataset(io->input));
    CHECK(svp_acl_mdl_destroy_dataset(io->output));
    memset(io, 0, sizeof *io);
}

/* Row by row: the NPU buffer's rows are `stride` bytes apart, the file's are dense. */
void sample_io_fill(const sample_model_t *m, sample_io_t *io, size_t image) {
    svp_acl_mdl_io_dims dims;
    svp_acl_data_buffer *buf = svp_acl_mdl_get_dataset_buffer(io->input, 0);
    size_t stride = svp_acl_get_data_buffer_stride(buf), rows = 1, row_bytes, r, d;
    uint8_t *dst = (uint8_t *)svp_acl_get_data_buffer_addr(buf);
    const uint8_t *src;
    CHECK(svp_acl_mdl_get_input_dims(m->desc, 0, &dims));
    for (d = 0; d + 1 < dims.dim_count; d++) rows *= (size_t)dims.dims[d];
    row_bytes = (size_t)dims.dims[dims.dim_count - 1] * sizeof(float);
    src = (const uint8_t *)m->images + (image % m->num_images) * rows * row_bytes;
    for (r = 0; r < rows; r++) memcpy(dst + r * stride, src + r * row_bytes, row_bytes);
}

int sample_io_check(const sample_model_t *m, const sample_io_t *io, size_t image) {
    const float *got = (const float *)svp_acl_get_data_buffer_addr(svp_acl_mdl_get_dataset_buffer(io->output, 0));
    const float *want = m->expected + (image % m->num_images) * SAMPLE_CLASSES;
    int c;
    for (c = 0; c < SAMPLE_CLASSES; c++) {
        if (fabsf(got[c] - want[c]) > 1e-4f) return 0;
    }
    return 1;
}

static void *aicpu_main(void *arg) {
    sample_aicpu_worker_t *w = (sample_aicpu_worker_t *)arg;
    svp_acl_error rc = svp_acl_rt_set_current_context(w->ctx);
    if (rc != SVP_ACL_SUCCESS) {
        fprintf(stderr, "AI-CPU thread: svp_acl_rt_set_current_context -> %d: %s\n", rc, svp_acl_get_recent_err_msg());
        w->errors++;
        return NULL;
    }
    /* A short timeout so that the thread notices the stop request quickly; a timeout is
     * the normal "nothing to do" answer. */
    while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
        rc = svp_acl_ext_process_aicpu_task(20);
        if (rc != SVP_ACL_SUCCESS && rc != SVP_ACL_ERROR_RT_REPORT_TIMEOUT) {
            fprintf(stderr, "AI-CPU thread: svp_acl_ext_process_aicpu_task -> %d: %s\n", rc,
                    svp_acl_get_recent_err_msg());
            w->errors++;
            break;
        }
    }
    return NULL;
}

void sample_aicpu_worker_start(sample_aicpu_worker_t *w, svp_acl_rt_context ctx) {
    memset(w, 0, sizeof *w);
    w->ctx = ctx;
    if (pthread_create(&w->thread, NULL, aicpu_main, w) != 0) {
        fprintf(stderr, "cannot start the AI-CPU thread\n");
        exit(1);
    }
}

int sample_aicpu_worker_stop(sample_aicpu_worker_t *w) {
    __atomic_store_n(&w->stop, 1, __ATOMIC_RELEASE);
    if (pthread_join(w->thread, NULL) != 0) {
        fprintf(stderr, "cannot join the AI-CPU thread\n");
        exit(1);
    }
    return w->errors;
}

/* ---- files ---- */

void sample_path_join(char *out, size_t size, const char *dir, const char *name) {
    if ((size_t)snprintf(out, size, "%s/%s", dir, name) >= size) {
        fprintf(stderr, "path too long: %s/%s\n", dir, name);
        exit(1);
    }
}

void sample_make_temp_dir(char *buf, size_t size, const char *prefix) {
    const char *tmp = getenv("TMPDIR");
    if (tmp == NULL || tmp[0] == '\0') tmp = "/tmp";
    if ((size_t)snprintf(buf, size, "%s/%s_XXXXXX", tmp, prefix) >= size || mkdtemp(buf) == NULL) {
        fprintf(stderr, "cannot create a temporary directory in %s: %s\n", tmp, strerror(errno));
        exit(1);
    }
}

int sample_path_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

int sample_remove_tree(const char *path) {
    struct stat st;
    DIR *d;
    struct dirent *e;
    int rc = 0;
    if (lstat(path, &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) return unlink(path);
    d = opendir(path);
    if (d == NULL) return -1;
    while ((e = readdir(d)) != NULL) {
        char child[SAMPLE_PATH_MAX];
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if ((size_t)snprintf(child, sizeof child, "%s/%s", path, e->d_name) >= sizeof child) {
            rc = -1;
            continue;
        }
        if (sample_remove_tree(child) != 0) rc = -1;
    }
    closedir(d);
    if (rmdir(path) != 0) rc = -1;
    return rc;
}

void sample_list_jobs(const char *root, sample_name_list_t *out) {
    DIR *d = opendir(root);
    struct dirent *e;
    size_t capacity = 0;
    out->names = NULL;
    out->count = 0;
    if (d == NULL) {
        fprintf(stderr, "cannot list %s: %s\n", root, strerror(errno));
        exit(1);
    }
    while ((e = readdir(d)) != NULL) {
        char path[SAMPLE_PATH_MAX];
        struct stat st;
        if (strncmp(e->d_name, "JOB", 3) != 0) continue;
        snprintf(path, sizeof path, "%s/%s", root, e->d_name);
        if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) continue;
        if (out->count == capacity) {
            char **grown;
            capacity = capacity == 0 ? 8 : capacity * 2;
            grown = (char **)realloc(out->names, capacity * sizeof *grown);
            if (grown == NULL) {
                fprintf(stderr, "out of memory\n");
                exit(1);
            }
            out->names = grown;
        }
        out->names[out->count] = strdup(e->d_name);
        if (out->names[out->count] == NULL) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
        out->count++;
    }
    closedir(d);
}

void sample_free_list(sample_name_list_t *list) {
    size_t i;
    for (i = 0; i < list->count; i++) free(list->names[i]);
    free(list->names);
    list->names = NULL;
    list->count = 0;
}

size_t sample_new_jobs(const char *root, const sample_name_list_t *before, const sample_name_list_t *after,
                       char *path, size_t size) {
    size_t i, j, fresh = 0;
    for (i = 0; i < after->count; i++) {
        int seen = 0;
        for (j = 0; j < before->count && !seen; j++) seen = strcmp(after->names[i], before->names[j]) == 0;
        if (seen) continue;
        fresh++;
        snprintf(path, size, "%s/%s", root, after->names[i]);
    }
    return fresh;
}

char *sample_read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    char *text;
    long n;
    if (f == NULL) return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    text = (char *)malloc((size_t)n + 1);
    if (text == NULL || fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        fclose(f);
        return NULL;
    }
    text[n] = '\0';
    fclose(f);
    return text;
}

long sample_for_each_line(const char *path, sample_line_fn fn, void *arg) {
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long count = 0;
    if (f == NULL) return -1;
    while ((len = getline(&line, &cap, f)) > 0) {
        if (line[len - 1] != '\n') sample_expect(0, "%s: the last line does not end in a newline", path);
        count++;
        if (fn != NULL) fn(line, arg);
    }
    free(line);
    fclose(f);
    return count;
}

typedef struct {
    const char *needle;
    long count;
} needle_count_t;

static void count_if_contains(const char *line, void *arg) {
    needle_count_t *c = (needle_count_t *)arg;
    if (strstr(line, c->needle) != NULL) c->count++;
}

long sample_count_lines_with(const char *path, const char *needle) {
    needle_count_t c;
    c.needle = needle;
    c.count = 0;
    if (sample_for_each_line(path, count_if_contains, &c) < 0) return -1;
    return c.count;
}

long sample_count_lines(const char *path) { return sample_for_each_line(path, NULL, NULL); }

int sample_json_u64(const char *text, const char *section, const char *key, unsigned long long *out) {
    char quoted[128];
    const char *begin = text, *end = text + strlen(text), *p;
    if (section != NULL) {
        snprintf(quoted, sizeof quoted, "\"%s\"", section);
        begin = strstr(text, quoted);
        if (begin == NULL || (begin = strchr(begin, '{')) == NULL || (end = strchr(begin, '}')) == NULL) return 0;
    }
    snprintf(quoted, sizeof quoted, "\"%s\"", key);
    for (p = strstr(begin, quoted); p != NULL && p < end; p = strstr(p + 1, quoted)) {
        const char *v = p + strlen(quoted);
        while (*v == ' ') v++;
        if (*v != ':') continue; /* the key text appeared as a value */
        v++;
        while (*v == ' ') v++;
        if (*v < '0' || *v > '9') return 0;
        *out = strtoull(v, NULL, 10);
        return 1;
    }
    return 0;
}

static const char *const k_job_files[] = {"acl_api", "task", "aicore", "aicpu"};

/* end_info.json: complete, and for every data file its "records" count equals its number
 * of lines and nothing was dropped (a reader's test for truncation). */
void sample_check_end_info(const char *job) {
    char path[SAMPLE_PATH_MAX];
    char *text;
    size_t i;
    sample_path_join(path, sizeof path, job, "end_info.json");
    text = sample_read_text(path);
    sample_expect(text != NULL, "%s is missing: the session was not closed", path);
    if (text == NULL) return;
    sample_expect(strstr(text, "\"complete\": true") != NULL, "%s does not say \"complete\": true", path);
    for (i = 0; i < sizeof k_job_files / sizeof k_job_files[0]; i++) {
        unsigned long long records = 0, dropped = 0;
        long lines;
        char name[32];
        snprintf(name, sizeof name, "data/%s.jsonl", k_job_files[i]);
        sample_path_join(path, sizeof path, job, name);
        lines = sample_count_lines(path);
        sample_expect(sample_json_u64(text, "records", k_job_files[i], &records) && lines >= 0 &&
                          records == (unsigned long long)lines,
                      "end_info.json records.%s = %llu, %s has %ld lines", k_job_files[i], records, path, lines);
        sample_expect(sample_json_u64(text, "dropped", k_job_files[i], &dropped) && dropped == 0,
                      "end_info.json dropped.%s = %llu", k_job_files[i], dropped);
    }
    free(text);
}
