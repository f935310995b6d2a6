/* FLINT's fmpz_lll (default context: delta 0.99, eta 0.51, the same as tmd-lattice's fplll
 * call) on the bases written by `lll_compare`: one file per format and shape, its first line
 * the number of bases, then one basis a line in fmpz_mat_fread's format. Prints the mean time
 * per basis of each file. */
#include <flint/fmpz_lll.h>
#include <flint/fmpz_mat.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv) {
    fmpz_lll_t context;
    fmpz_lll_context_init_default(context);
    printf("file\tbases\tFLINT ms per basis\n");
    for (int a = 1; a < argc; a++) {
        FILE *f = fopen(argv[a], "r");
        int count;
        if (!f || fscanf(f, "%d", &count) != 1) return 1;
        double total = 0;
        for (int i = 0; i < count; i++) {
            fmpz_mat_t b;
            fmpz_mat_init(b, 0, 0);
            if (!fmpz_mat_fread(f, b)) return 2;
            double t0 = now();
            fmpz_lll(b, NULL, context);
            total += now() - t0;
            fmpz_mat_clear(b);
        }
        fclose(f);
        printf("%s\t%d\t%.4f\n", argv[a], count, 1e3 * total / count);
    }
    return 0;
}
