/* The C twin of the kernel's random round: plain C, the same rules (scopa:
 * 2 players, hands of 3, 4 cards to the table, new hands while the deck
 * lasts, no scopa on the last play), the same random streams and the same
 * decisions as `scopa-sim simulate --strategies random,random` (docs/ENGINE.md):
 *
 *   deck     SipHash-2-4 deal stream of (seed, round), Fisher-Yates from the top
 *   decide   SipHash-2-4 decide stream; each play draws below(number of moves)
 *   moves    hand cards ascending, each card's captures in ascending mask
 *            order (single-card priority, else the sums of two or more), or
 *            its trail; found as kernels/moves.py finds them (the same
 *            algorithm: subset sums by prefix, a fork stack), in plain C
 *   results  per side: cards, coins, settebello, primiera, scopas, the
 *            points (int16, as the kernel's rows) and per round: round, game,
 *            dealer, last capturer, leftover, captures (int64)
 *
 * Built by benchmarks/bench_kernel.py with `gcc -O2` and checked against
 * the kernel row for row before it is timed.
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

static uint64_t sip(uint64_t k0, uint64_t k1, uint64_t m) {
    uint64_t v0 = k0 ^ 0x736F6D6570736575ULL, v1 = k1 ^ 0x646F72616E646F6DULL;
    uint64_t v2 = k0 ^ 0x6C7967656E657261ULL, v3 = k1 ^ 0x7465646279746573ULL;
    uint64_t blocks[2] = {m, 8ULL << 56};
    for (int b = 0; b < 2; b++) {
        v3 ^= blocks[b];
        SIPROUND; SIPROUND;
        v0 ^= blocks[b];
    }
    v2 ^= 0xFF;
    SIPROUND; SIPROUND; SIPROUND; SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

static inline uint64_t next_u64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline int below(uint64_t *state, int n) {
    return (int)(((next_u64(state) >> 32) * (uint64_t)n) >> 32);
}

/* ---- the round -------------------------------------------------------- */
static int RANK[40];                 /* rank 1..10 of each card */
static uint64_t OF_RANK[11];         /* the four cards of each rank */

static void init_tables(void) {
    for (int c = 0; c < 40; c++) {
        RANK[c] = c % 10 + 1;
        OF_RANK[RANK[c]] |= 1ULL << c;
    }
}

typedef struct {
    uint64_t hand[2], pile[2], table;
    int scopas[2], last, turn, plays, at, captures, leader;
} Round;

typedef struct { int card; uint64_t take; } Move;

static void deal(Round *r, const int *deck) {
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 2; i++)
            r->hand[(r->leader + i) & 1] |= 1ULL << deck[r->at++];
    r->turn = r->leader;
}

/* The table's cards ascending (t), their ranks (r) and for each prefix
 * t[0..i-1] the sums its subsets reach (reach[i], bit s: some subset sums to
 * s <= 10); returns the number of cards. */
static int index_table(uint64_t table, int *t, int *r, int *reach) {
    int k = 0;
    reach[0] = 1;
    for (uint64_t m = table; m; m &= m - 1, k++) {
        t[k] = __builtin_ctzll(m);
        r[k] = RANK[t[k]];
        reach[k + 1] = (reach[k] | reach[k] << r[k]) & 0x7FF;
    }
    return k;
}

/* Append to moves every set of the k indexed table cards whose ranks sum to
 * `rank`, in ascending mask order (kernels/moves.py's sum_captures): walk
 * from the highest card down, leaving it before taking it (smaller masks
 * first); the prefix sums say which choices can still reach the rest, so no
 * branch is a dead end; the taking state of a fork waits on a stack (take
 * mask, remainder << 40, cards left << 48), written on every step and
 * advanced only on a fork. */
static int sum_captures(int card, int rank, int k, const int *t, const int *r,
                        const int *reach, Move *moves, int n) {
    uint64_t stack[48], take = 0;
    int top = 0;
    int64_t at = k, left = rank;
    for (;;) {
        while (left) {
            at--;
            int64_t before = reach[at], rk = r[at];
            uint64_t bit = 1ULL << t[at];
            int64_t can_leave = before >> left & 1;
            int64_t can_take = rk <= left ? before >> (left - rk) & 1 : 0;
            stack[top] = (take | bit) | (uint64_t)(left - rk) << 40 | (uint64_t)at << 48;
            top += (int)(can_leave & can_take);
            if (!can_leave) {
                left -= rk;
                take |= bit;
            }
        }
        moves[n].card = card;
        moves[n++].take = take;
        if (top == 0)
            return n;
        uint64_t state = stack[--top];
        take = state & ((1ULL << 40) - 1);
        left = (int64_t)(state >> 40 & 0xFF);
        at = (int64_t)(state >> 48);
    }
}

static inline uint64_t rank_set(uint64_t cards) {   /* bit r-1: a card of rank r */
    return (cards | cards >> 10 | cards >> 20 | cards >> 30) & 0x3FF;
}

/* The legal moves of `hand` on `table`, as kernels/moves.py's legal_moves
 * finds them: first the ranks whose cards need a sum capture (no table card
 * of their rank, and some subset reaching it), then each card by the short
 * path (its lowest single capture, or the trail when it has none, then any
 * further singles) or the long one (its sum captures). */
static int legal_moves(uint64_t hand, uint64_t table, Move *moves) {
    int t[40], r[40], reach[41], k = 0, n = 0;
    uint64_t no_single = rank_set(hand) & ~rank_set(table), slow = 0;
    if (no_single & ~1ULL) {                         /* sums for ranks 2..10 */
        k = index_table(table, t, r, reach);
        slow = (uint64_t)(reach[k] >> 1) & no_single & ~1ULL;
    }
    for (uint64_t h = hand; h; h &= h - 1) {
        int card = __builtin_ctzll(h), rank = RANK[card];
        if (slow >> (rank - 1) & 1) {
            n = sum_captures(card, rank, k, t, r, reach, moves, n);
            continue;
        }
        uint64_t singles = table & OF_RANK[rank];
        uint64_t low = singles & -singles;           /* 0, the trail, if there is none */
        moves[n].card = card;
        moves[n++].take = low;
        for (singles ^= low; singles; singles &= singles - 1) {
            moves[n].card = card;
            moves[n++].take = singles & -singles;
        }
    }
    return n;
}

static void play(Round *r, const int *deck, Move m) {
    int seat = r->turn;
    uint64_t card = 1ULL << m.card;
    r->hand[seat] ^= card;
    if (m.take) {
        if (m.take == r->table && r->plays + 1 < 36)
            r->scopas[seat]++;
        r->table ^= m.take;
        r->pile[seat] |= m.take | card;
        r->last = seat + 1;
        r->captures++;
    } else {
        r->table |= card;
    }
    r->plays++;
    r->turn = seat ^ 1;
    if (r->plays < 36 && r->hand[r->turn] == 0)
        deal(r, deck);
}

static int primiera(uint64_t pile) {
    int total = 0;
    for (int s = 0; s < 4; s++) {
        int best = 0;
        for (uint64_t m = pile >> (10 * s) & 0x3FF; m; m &= m - 1) {
            int v = PRIMIERA[__builtin_ctzll(m)];
            best = v > best ? v : best;
        }
        total += best;
    }
    return total;
}

static void score(const Round *r, int16_t *out) {          /* out[2][N_SIDE], zeroed */
    for (int t = 0; t < 2; t++) {
        int16_t *o = out + t * N_SIDE;
        o[S_CARDS] = (int16_t)__builtin_popcountll(r->pile[t]);
        o[S_COINS] = (int16_t)__builtin_popcountll(r->pile[t] & 0x3FF);
        o[S_SETTEBELLO] = o[S_PT_SETTEBELLO] = (int16_t)(r->pile[t] >> 6 & 1);
        o[S_PRIMIERA] = (int16_t)primiera(r->pile[t]);
        o[S_SCOPAS] = (int16_t)r->scopas[t];
    }
    static const int most[3][2] = {{S_CARDS, S_PT_CARDS}, {S_COINS, S_PT_COINS},
                                   {S_PRIMIERA, S_PT_PRIMIERA}};
    for (int f = 0; f < 3; f++) {
        int a = out[most[f][0]], b = out[N_SIDE + most[f][0]];
        if (a != b)
            out[(a > b ? 0 : N_SIDE) + most[f][1]] = 1;
    }
    for (int t = 0; t < 2; t++) {
        int16_t *o = out + t * N_SIDE;
        o[S_POINTS] = (int16_t)(o[S_PT_CARDS] + o[S_PT_COINS] + o[S_PT_SETTEBELLO]
                                + o[S_PT_PRIMIERA] + o[S_SCOPAS]);
    }
}

/* Round u of run `seed` (random against random) into its rows. */
static void play_round(uint64_t seed, int64_t u, int16_t *sides, int64_t *fields) {
    uint64_t key = (uint64_t)u << 20, state = sip(seed, DEAL, key);
    int deck[40];
    Move moves[64];
    for (int c = 0; c < 40; c++)
        deck[c] = c;
    for (int i = 39; i > 0; i--) {
        int j = below(&state, i + 1), x = deck[i];
        deck[i] = deck[j];
        deck[j] = x;
    }
    state = sip(seed, DECIDE, key);
    Round r;
    memset(&r, 0, sizeof r);
    int dealer = (int)(u % 2);
    for (int i = 0; i < 4; i++)
        r.table |= 1ULL << deck[i];
    r.at = 4;
    r.leader = (dealer + 1) % 2;
    deal(&r, deck);
    while (r.plays < 36) {
        int n = legal_moves(r.hand[r.turn], r.table, moves);
        play(&r, deck, moves[below(&state, n)]);
    }
    int leftover = __builtin_popcountll(r.table);
    if (r.last)
        r.pile[r.last - 1] |= r.table;
    memset(sides, 0, 2 * N_SIDE * sizeof *sides);
    score(&r, sides);
    fields[Q_ROUND] = u;
    fields[Q_GAME] = -1;
    fields[Q_DEALER] = dealer;
    fields[Q_LAST_CAPTURER] = r.last - 1;
    fields[Q_LEFTOVER] = leftover;
    fields[Q_CAPTURES] = r.captures;
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
