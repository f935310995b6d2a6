// The one entry point tmd needs from fplll: LLL-reduce an integer matrix given and returned as
// hexadecimal strings (linear-time conversions), so that no GMP object crosses the Rust/C++
// boundary.
#include <fplll.h>

#include <cstdlib>
#include <exception>

extern "C" {

// Reduces the rows x cols matrix whose entries are entries[i * cols + j] (hexadecimal, with an
// optional leading '-') with fplll's
// LLL wrapper (delta, eta); on success writes the reduced rows to out[i * cols + j], each a
// malloc'd hexadecimal string for tmd_fplll_free, and returns 0. Otherwise returns fplll's status
// (RED_*), or -1 for an exception; out is then untouched.
int tmd_fplll_lll(int rows, int cols, const char *const *entries, char **out, double delta,
                  double eta) {
  try {
    fplll::ZZ_mat<mpz_t> b(rows, cols);
    for (int i = 0; i < rows; i++)
      for (int j = 0; j < cols; j++)
        mpz_set_str(b[i][j].get_data(), entries[i * cols + j], 16);
    int status = fplll::lll_reduction(b, delta, eta);
    if (status != fplll::RED_SUCCESS)
      return status;
    for (int i = 0; i < rows; i++) {
      for (int j = 0; j < cols; j++) {
        const mpz_t &z = b[i][j].get_data();
        size_t len = mpz_sizeinbase(z, 16) + 2;
        char *s = static_cast<char *>(std::malloc(len));
        if (s == nullptr)
          return -1;
        mpz_get_str(s, 16, z);
        out[i * cols + j] = s;
      }
    }
    return 0;
  } catch (const std::exception &) {
    return -1;
  }
}

void tmd_fplll_free(char *s) { std::free(s); }
}
