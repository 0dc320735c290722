/* The C twin of the kernel's random round, written as fast as we can write
 * it: the same rules (scopa: 2 players, hands of 3, 4 cards to the table,
 * new hands while the deck lasts, no scopa on the last play), the same random
 * streams and the same decisions as `scopa-sim simulate --strategies
 * random,random` (docs/ENGINE.md), so that its rows can be checked against
 * the kernel's before it is timed:
 *
 *   deck     SipHash-2-4 deal stream of (seed, round), Fisher-Yates from the
 *            top with SplitMix64 draws (kernels/rng.py)
 *   decide   SipHash-2-4 decide stream; each play draws below(number of moves)
 *   moves    hand cards ascending, each card's captures in ascending mask
 *            order: its single-card captures, else its sum captures (two or
 *            more cards), else its trail
 *   results  per side: cards, coins, settebello, primiera, scopas, the
 *            points (int16, as the kernel's rows) and per round: round, game,
 *            dealer, last capturer, leftover, captures (int64)
 *
 * What makes it fast, none of it in the kernel's shape:
 *   - one loop specialised to the preset: six deals of three cards each, six
 *     plays a deal, the seat alternating; the whole position in locals
 *     (registers), the deck in bytes, nothing allocated, nothing general;
 *   - a lookup table says whether a card without a single-card capture has
 *     sum captures: REACH, indexed by the table's rank counts (capped where no
 *     sum of 10 or less can use more: 14,400 entries), kept up to date play
 *     by play and built from the partitions of every rank 2..10 into two or
 *     more parts; only then is the table indexed and its sum captures walked
 *     (prefix subset sums, no dead end, in ascending mask order);
 *   - a card's single-card captures (at most four) or its trail written to
 *     four slots whatever their number, with no branch on it (the branches
 *     the predictor misses are most of a round's time);
 *   - primiera from a 1,024-entry table per suit slice.
 * Measured against the alternatives (valgrind --tool=cachegrind
 * --branch-sim=yes, 20,000 rounds): the previous twin (the kernel's
 * algorithm, gcc -O3) 10,300 instructions and 150 mispredicted branches a
 * round; this one 9,800 and 132; enumerating the sum captures from the
 * partitions (a feasibility test each, then the suit choices, sorted) was
 * 0.6 times as fast as walking the prefix sums.
 * Built by benchmarks/bench_kernel.py with `gcc -O3 -march=native` and
 * checked against the kernel row for row before it is timed.
 *
 *   c_twin check SEED FIRST COUNT FILE   rows of rounds FIRST.. into FILE (binary)
 *   c_twin time SEED COUNT               rounds/s of CPU time (batches of 100,000 rows)
 */
#define _POSIX_C_SOURCE 199309L      /* clock_gettime */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N_SIDE 13
#define N_ROUND 6
#define BATCH 100000
#define PLAYS 36

enum { S_CARDS, S_COINS, S_SETTEBELLO, S_PRIMIERA, S_SCOPAS, S_PT_CARDS, S_PT_COINS,
       S_PT_SETTEBELLO, S_PT_PRIMIERA, S_PT_RE_BELLO, S_PT_NAPOLA, S_POINTS, S_SCORE };
enum { Q_ROUND, Q_GAME, Q_DEALER, Q_LAST_CAPTURER, Q_LEFTOVER, Q_CAPTURES };

static const uint64_t DEAL = 0x6465616CULL, DECIDE = 0x64656369646521ULL;
static const int PRIMIERA[10] = {16, 12, 13, 14, 15, 18, 21, 10, 10, 10};

/* ---- randomness ------------------------------------------------------- */
static inline uint64_t rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

#define SIPROUND do { v0 += v1; v1 = rotl(v1, 13) ^ v0; v0 = rotl(v0, 32); \
                      v2 += v3; v3 = rotl(v3, 16) ^ v2; v0 += v3; v3 = rotl(v3, 21) ^ v0; \
                      v2 += v1; v1 = rotl(v1, 17) ^ v2; v2 = rotl(v2, 32); } while (0)

static inline uint64_t sip(uint64_t k0, uint64_t k1, uint64_t m) {
    uint64_t v0 = k0 ^ 0x736F6D6570736575ULL, v1 = k1 ^ 0x646F72616E646F6DULL;
    uint64_t v2 = k0 ^ 0x6C7967656E657261ULL, v3 = k1 ^ 0x7465646279746573ULL;
    v3 ^= m; SIPROUND; SIPROUND; v0 ^= m;
    v3 ^= 8ULL << 56; SIPROUND; SIPROUND; v0 ^= 8ULL << 56;
    v2 ^= 0xFF;
    SIPROUND; SIPROUND; SIPROUND; SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

static inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

#define GOLDEN 0x9E3779B97F4A7C15ULL
static inline uint32_t scaled(uint64_t bits, uint32_t n) {
    return (uint32_t)(((bits >> 32) * n) >> 32);
}

/* ---- tables ----------------------------------------------------------- */
#define RANK(c) (RANK_OF[c])
static uint8_t RANK_OF[40];          /* rank 1..10 of each card */
static uint64_t OF_RANK[11];         /* the four cards of each rank */
static uint8_t BEST[1024];           /* primiera: best value of a suit slice */

/* Rank counts packed 4 bits a rank (rank r at bits 4(r-1)..; values 0..4,
 * bit 3 of each field the guard); a partition's multiplicities the same. */
#define GUARD 0x888888888ULL          /* ranks 1..9 */
static uint64_t PART[11][48];        /* PART[s][i]: the partitions of s, 2+ parts */
static int N_PART[11];
/* REACH[index of the capped counts], bit s: a sum of two or more table
 * cards makes s; index: sum over ranks 1..9 of min(count, CAP) * STRIDE */
static const int CAP[10] = {0, 4, 4, 3, 2, 2, 1, 1, 1, 1};
static int STRIDE[10];
static uint16_t REACH[14400];        /* bit s: some 2+ subset sums to s */
static void partitions(int s, int left, int most, uint64_t mult, int parts) {
    if (left == 0) {
        if (parts >= 2)
            PART[s][N_PART[s]++] = mult;
        return;
    }
    for (int r = most < left ? most : left; r >= 1; r--) {
        if (r == 10 || (mult >> 4 * (r - 1) & 0xF) == 4)
            continue;
        partitions(s, left - r, r, mult + (1ULL << 4 * (r - 1)), parts + 1);
    }
}

static void init_tables(void) {
    for (int c = 0; c < 40; c++) {
        RANK_OF[c] = (uint8_t)(c % 10 + 1);
        OF_RANK[RANK_OF[c]] |= 1ULL << c;
    }
    for (int m = 1; m < 1024; m++)
        for (int r = 0; r < 10; r++)
            if (m >> r & 1 && PRIMIERA[r] > BEST[m])
                BEST[m] = (uint8_t)PRIMIERA[r];
    for (int s = 2; s <= 10; s++)
        partitions(s, s, 9, 0, 0);
    int stride = 1;
    for (int r = 1; r <= 9; r++) {
        STRIDE[r] = stride;
        stride *= CAP[r] + 1;
    }
    for (int idx = 0; idx < 14400; idx++) {
        uint64_t counts = 0;
        for (int r = 1; r <= 9; r++)
            counts |= (uint64_t)(idx / STRIDE[r] % (CAP[r] + 1)) << 4 * (r - 1);
        uint16_t reach = 0;
        for (int s = 2; s <= 10; s++)
            for (int i = 0; i < N_PART[s]; i++)
                if ((((counts | GUARD) - PART[s][i]) & GUARD) == GUARD)
                    reach |= (uint16_t)(1 << s);
        REACH[idx] = reach;
    }
}

/* ---- moves ------------------------------------------------------------ */
/* The table's cards ascending (t), their ranks (r) and for each prefix
 * t[0..i-1] the sums its subsets reach (reach[i], bit s: some subset sums to
 * s <= 10); returns the number of cards. */
static inline int index_table(uint64_t table, uint8_t *t, uint8_t *r, uint16_t *reach) {
    int k = 0;
    reach[0] = 1;
    for (uint64_t m = table; m; m &= m - 1, k++) {
        t[k] = (uint8_t)__builtin_ctzll(m);
        r[k] = RANK(t[k]);
        reach[k + 1] = (uint16_t)((reach[k] | reach[k] << r[k]) & 0x7FF);
    }
    return k;
}

/* Append every set of the k indexed table cards whose ranks sum to `rank`,
 * in ascending mask order: walk from the highest card down, leaving it
 * before taking it (smaller masks first); the prefix sums say which choices
 * can still reach the rest, so no branch is a dead end; the taking state of
 * a fork waits on a stack. */
static inline int sum_captures(int card, int rank, int k, const uint8_t *t, const uint8_t *r,
                               const uint16_t *reach, uint8_t *cards, uint64_t *take, int n) {
    uint64_t stack_take[40], tk = 0;
    int8_t stack_left[40], stack_at[40];
    int top = 0, at = k, left = rank;
    for (;;) {
        while (left) {
            at--;
            int before = reach[at], rk = r[at];
            uint64_t bit = 1ULL << t[at];
            int can_leave = before >> left & 1;
            int can_take = rk <= left && (before >> (left - rk) & 1);
            if (can_leave & can_take) {
                stack_take[top] = tk | bit;
                stack_left[top] = (int8_t)(left - rk);
                stack_at[top++] = (int8_t)at;
            } else if (!can_leave) {
                left -= rk;
                tk |= bit;
            }
        }
        cards[n] = (uint8_t)card;
        take[n++] = tk;
        if (top == 0)
            return n;
        top--;
        tk = stack_take[top];
        left = stack_left[top];
        at = stack_at[top];
    }
}

/* ---- the round -------------------------------------------------------- */
static int primiera(uint64_t pile) {
    return BEST[pile & 0x3FF] + BEST[pile >> 10 & 0x3FF] + BEST[pile >> 20 & 0x3FF]
           + BEST[pile >> 30 & 0x3FF];
}

/* Round u of run `seed` (random against random) into its rows. */
static inline void play_round(uint64_t seed, int64_t u, int16_t *sides, int64_t *fields) {
    uint64_t key = (uint64_t)u << 20, z = sip(seed, DEAL, key);
    uint8_t deck[40];
    uint8_t cards[64];
    uint64_t take[64];
    for (int c = 0; c < 40; c++)
        deck[c] = (uint8_t)c;
    for (int i = 39; i > 0; i--) {
        z += GOLDEN;
        uint32_t j = scaled(mix64(z), (uint32_t)i + 1);
        uint8_t x = deck[i];
        deck[i] = deck[j];
        deck[j] = x;
    }
    z = sip(seed, DECIDE, key);
    int dealer = (int)(u & 1), leader = dealer ^ 1;
    uint64_t hand[2] = {0, 0}, pile[2] = {0, 0}, table = 0, counts = 0;
    int idx = 0, scopas[2] = {0, 0}, last = 0, captures = 0, plays = 0, at = 4;
    for (int i = 0; i < 4; i++) {
        int c = deck[i], r = RANK(c);
        table |= 1ULL << c;
        if (r < 10) {
            if ((int)(counts >> 4 * (r - 1) & 0xF) < CAP[r])
                idx += STRIDE[r];
            counts += 1ULL << 4 * (r - 1);
        }
    }
    for (int d = 0; d < 6; d++) {
        for (int k = 0; k < 3; k++, at += 2) {
            hand[leader] |= 1ULL << deck[at];
            hand[leader ^ 1] |= 1ULL << deck[at + 1];
        }
        int seat = leader;
        for (int p = 0; p < 6; p++, plays++, seat ^= 1) {
            /* the legal moves */
            int n = 0, k = -1;
            uint16_t reach = REACH[idx];
            uint8_t tc[40], tr[40];
            uint16_t pre[41];
            for (uint64_t h = hand[seat]; h; h &= h - 1) {
                int card = __builtin_ctzll(h), rank = RANK(card);
                uint64_t singles = table & OF_RANK[rank];
                if (!singles && (reach >> rank & 1)) {
                    if (k < 0)
                        k = index_table(table, tc, tr, pre);
                    n = sum_captures(card, rank, k, tc, tr, pre, cards, take, n);
                    continue;
                }
                /* the singles (at most 4), or the trail: four slots written
                 * whatever the count, no branch on it */
                int count = __builtin_popcountll(singles);
                for (int j = 0; j < 4; j++) {
                    cards[n + j] = (uint8_t)card;
                    take[n + j] = singles & -singles;
                    singles &= singles - 1;
                }
                n += count + (count == 0);
            }
            z += GOLDEN;
            int i = (int)scaled(mix64(z), (uint32_t)n);
            int card = cards[i];
            uint64_t t = take[i], bit = 1ULL << card;
            hand[seat] ^= bit;
            if (t) {
                scopas[seat] += t == table && plays + 1 < PLAYS;
                table ^= t;
                pile[seat] |= t | bit;
                last = seat + 1;
                captures++;
                for (uint64_t m = t; m; m &= m - 1) {
                    int r = RANK(__builtin_ctzll(m));
                    if (r < 10) {
                        counts -= 1ULL << 4 * (r - 1);
                        if ((int)(counts >> 4 * (r - 1) & 0xF) < CAP[r])
                            idx -= STRIDE[r];
                    }
                }
            } else {
                int r = RANK(card);
                table |= bit;
                if (r < 10) {
                    if ((int)(counts >> 4 * (r - 1) & 0xF) < CAP[r])
                        idx += STRIDE[r];
                    counts += 1ULL << 4 * (r - 1);
                }
            }
        }
    }
    int leftover = __builtin_popcountll(table);
    if (last)
        pile[last - 1] |= table;
    memset(sides, 0, 2 * N_SIDE * sizeof *sides);
    for (int t = 0; t < 2; t++) {
        int16_t *o = sides + t * N_SIDE;
        o[S_CARDS] = (int16_t)__builtin_popcountll(pile[t]);
        o[S_COINS] = (int16_t)__builtin_popcountll(pile[t] & 0x3FF);
        o[S_SETTEBELLO] = o[S_PT_SETTEBELLO] = (int16_t)(pile[t] >> 6 & 1);
        o[S_PRIMIERA] = (int16_t)primiera(pile[t]);
        o[S_SCOPAS] = (int16_t)scopas[t];
    }
    static const int most[3][2] = {{S_CARDS, S_PT_CARDS}, {S_COINS, S_PT_COINS},
                                   {S_PRIMIERA, S_PT_PRIMIERA}};
    for (int f = 0; f < 3; f++) {
        int a = sides[most[f][0]], b = sides[N_SIDE + most[f][0]];
        if (a != b)
            sides[(a > b ? 0 : N_SIDE) + most[f][1]] = 1;
    }
    for (int t = 0; t < 2; t++) {
        int16_t *o = sides + t * N_SIDE;
        o[S_POINTS] = (int16_t)(o[S_PT_CARDS] + o[S_PT_COINS] + o[S_PT_SETTEBELLO]
                                + o[S_PT_PRIMIERA] + o[S_SCOPAS]);
    }
    fields[Q_ROUND] = u;
    fields[Q_GAME] = -1;
    fields[Q_DEALER] = dealer;
    fields[Q_LAST_CAPTURER] = last - 1;
    fields[Q_LEFTOVER] = leftover;
    fields[Q_CAPTURES] = captures;
}

static double cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    init_tables();
    if (argc == 6 && !strcmp(argv[1], "check")) {
        uint64_t seed = strtoull(argv[2], 0, 10);
        int64_t first = atoll(argv[3]), count = atoll(argv[4]);
        FILE *f = fopen(argv[5], "wb");
        if (!f)
            return 1;
        for (int64_t u = first; u < first + count; u++) {
            int16_t sides[2 * N_SIDE];
            int64_t fields[N_ROUND];
            play_round(seed, u, sides, fields);
            fwrite(sides, sizeof sides, 1, f);
            fwrite(fields, sizeof fields, 1, f);
        }
        return fclose(f) != 0;
    }
    if (argc == 4 && !strcmp(argv[1], "time")) {
        uint64_t seed = strtoull(argv[2], 0, 10);
        int64_t count = atoll(argv[3]), check = 0;
        int16_t *sides = malloc(sizeof(int16_t) * BATCH * 2 * N_SIDE);
        int64_t *fields = malloc(sizeof(int64_t) * BATCH * N_ROUND);
        double t = cpu_seconds();
        for (int64_t first = 0; first < count; first += BATCH) {
            int64_t rows = count - first < BATCH ? count - first : BATCH;
            for (int64_t k = 0; k < rows; k++)
                play_round(seed, first + k, sides + k * 2 * N_SIDE, fields + k * N_ROUND);
            check += sides[S_POINTS] + fields[(rows - 1) * N_ROUND + Q_CAPTURES];
        }
        t = cpu_seconds() - t;
        printf("%.1f %lld\n", count / t, (long long)check);
        return 0;
    }
    fprintf(stderr, "usage: c_twin check SEED FIRST COUNT FILE | c_twin time SEED COUNT\n");
    return 2;
}
