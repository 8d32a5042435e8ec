//! `blkscope-native boot-means`: the replicate means of mean_ci_boot's percentile bootstrap
//! (src/blkscope/analysis/boot_means.py), bit-identical to numpy's
//! `x[rng.integers(0, n, (n_boot, n), dtype=np.int32)].mean(axis=1)` for a Generator(PCG64) whose state
//! Python sends: numpy spent most of `blkscope latency` drawing and gathering index arrays.
//!
//! A long-lived co-process: frames on stdin, little-endian u64s then f64s: n_boot, n, state (high, low
//! 64 bits), inc (high, low), has_uint32, uinteger, then the n values; the answer on stdout is n_boot f64
//! means. End of input between frames ends the program (exit 0); a malformed frame exits 2.

use std::io::{self, BufReader, BufWriter, Read, Write};
use std::process::ExitCode;

/// numpy's PCG64 (XSL-RR 128/64) with its 32-bit buffer (numpy/random/src/pcg64/pcg64.h).
pub struct Pcg64 {
    state: u128,
    inc: u128,
    has32: bool,
    buf: u32,
}

const MULT: u128 = 0x2360_ED05_1FC6_5DA4_4385_DF64_9FCC_F645;

/// XSL-RR: the output of a state.
fn output(state: u128) -> u64 {
    let (hi, lo) = ((state >> 64) as u64, state as u64);
    (hi ^ lo).rotate_right((hi >> 58) as u32)
}

impl Pcg64 {
    pub fn new(state: u128, inc: u128, has32: bool, buf: u32) -> Self {
        Pcg64 { state, inc, has32, buf }
    }

    /// Step, then output the new state.
    pub fn next64(&mut self) -> u64 {
        self.state = self.state.wrapping_mul(MULT).wrapping_add(self.inc);
        output(self.state)
    }

    /// pcg64_next32: the low half of a 64-bit draw, its high half on the next call.
    pub fn next32(&mut self) -> u32 {
        if self.has32 {
            self.has32 = false;
            return self.buf;
        }
        let v = self.next64();
        self.has32 = true;
        self.buf = (v >> 32) as u32;
        v as u32
    }

    /// A value in 0..=rng: numpy's buffered_bounded_lemire_uint32 (Lemire's method, no masking), which
    /// `integers(..., dtype=np.int32)` uses.
    pub fn bounded(&mut self, rng: u32) -> u32 {
        let first = self.next32();
        self.bounded_from(first, rng)
    }

    /// `bounded` whose first 32-bit draw was already taken.
    fn bounded_from(&mut self, first: u32, rng: u32) -> u32 {
        let excl = rng.wrapping_add(1);
        let mut m = first as u64 * excl as u64;
        if (m as u32) < excl {
            let threshold = (u32::MAX - rng) % excl;
            while (m as u32) < threshold {
                m = self.next32() as u64 * excl as u64;
            }
        }
        (m >> 32) as u32
    }
}

/// numpy's pairwise summation (numpy/_core/src/umath/loops_utils.h.src), the add.reduce of a contiguous
/// row; numpy 2.4 hands a row of up to 20,000 values to it whole (checked by tests/test_boot_means.py).
pub fn pairwise_sum(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        return a.iter().fold(-0.0, |r, &v| r + v);
    }
    if n <= 128 {
        let mut r = [0.0; 8];
        r.copy_from_slice(&a[..8]);
        let whole = n - n % 8;
        for c in a[8..whole].chunks_exact(8) {
            for j in 0..8 {
                r[j] += c[j];
            }
        }
        let res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        return a[whole..].iter().fold(res, |r, &v| r + v);
    }
    let half = n / 2;
    let n2 = half - half % 8;
    pairwise_sum(&a[..n2]) + pairwise_sum(&a[n2..])
}

/// Fill row with values of x at indices in 0..=rng drawn as `bounded` draws them, two per 64-bit draw while no
/// redraw is possible (a leftover below rng + 1, at most n in 2^32): 1000 x 20,000 values took 35 ms, not 47
/// (one measurement on the shared 2-core machine).
fn resample(g: &mut Pcg64, x: &[f64], row: &mut [f64], rng: u32) {
    let excl = rng as u64 + 1;
    let ok = |m: u64| (m & 0xffff_ffff) >= excl;
    let mut i = 0;
    while i < row.len() {
        if !g.has32 && i + 1 < row.len() {
            let v = g.next64();
            let (m0, m1) = ((v & 0xffff_ffff) * excl, (v >> 32) * excl);
            if ok(m0) && ok(m1) {
                row[i] = x[(m0 >> 32) as usize];
                row[i + 1] = x[(m1 >> 32) as usize];
                i += 2;
                continue;
            }
            // maybe a redraw: the high half waits in the buffer, as in pcg64_next32
            g.has32 = true;
            g.buf = (v >> 32) as u32;
            row[i] = x[g.bounded_from(v as u32, rng) as usize];
        } else {
            row[i] = x[g.bounded(rng) as usize];
        }
        i += 1;
    }
}

/// The n_boot replicate means of x from the generator's current state.
pub fn means(x: &[f64], n_boot: usize, g: &mut Pcg64, out: &mut Vec<f64>) {
    let mut row = vec![0.0; x.len()];
    out.clear();
    for _ in 0..n_boot {
        resample(g, x, &mut row, (x.len() - 1) as u32);
        out.push(pairwise_sum(&row) / x.len() as f64);
    }
}

fn read_u64s<const N: usize>(r: &mut impl Read) -> io::Result<Option<[u64; N]>> {
    let mut b = vec![0u8; 8 * N];
    let got = r.read(&mut b[..1])?;
    if got == 0 {
        return Ok(None);
    }
    r.read_exact(&mut b[1..])?;
    Ok(Some(std::array::from_fn(|i| u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().unwrap()))))
}

fn serve() -> io::Result<()> {
    let mut input = BufReader::with_capacity(1 << 20, io::stdin().lock());
    let mut output = BufWriter::new(io::stdout().lock());
    let (mut x, mut out, mut bytes) = (Vec::new(), Vec::new(), Vec::new());
    while let Some([n_boot, n, s_hi, s_lo, i_hi, i_lo, has32, buf]) = read_u64s::<8>(&mut input)? {
        if !(2..=u32::MAX as u64).contains(&n) {
            return Err(io::Error::new(io::ErrorKind::InvalidData, format!("n = {n}: 2 values at least")));
        }
        bytes.resize(8 * n as usize, 0);
        input.read_exact(&mut bytes)?;
        x.clear();
        x.extend(bytes.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())));
        let join = |hi: u64, lo: u64| (hi as u128) << 64 | lo as u128;
        let mut g = Pcg64::new(join(s_hi, s_lo), join(i_hi, i_lo), has32 != 0, buf as u32);
        means(&x, n_boot as usize, &mut g, &mut out);
        for m in &out {
            output.write_all(&m.to_le_bytes())?;
        }
        output.flush()?;
    }
    Ok(())
}

pub fn main() -> ExitCode {
    match serve() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS, // Python went away
        Err(e) => {
            eprintln!("blkscope-native boot-means: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// np.random.default_rng(0).bit_generator.state (numpy 2.4.6), split into 64-bit halves.
    fn seed0() -> Pcg64 {
        Pcg64::new(
            (0x1aa1_b534_5996_452d_u128 << 64) | 0x0958_5eb7_a695_61e3,
            (0x418d_dadb_3af7_1a82_u128 << 64) | 0x5881_33bc_4478_73a9,
            false,
            0,
        )
    }

    // Expected values below were printed by numpy 2.4.6 (the project's venv), not derived here.
    #[test]
    fn boot_pcg64_raw_matches_numpy() {
        // default_rng(0).bit_generator.random_raw(12)[:4]
        let mut g = seed0();
        let got: Vec<u64> = (0..4).map(|_| g.next64()).collect();
        let numpy = [0xa30febcfd9c2825f, 0x4510bdf882d9d721, 0x0a7d3da94ecde8b8, 0x043b27b61342f01d];
        assert_eq!(got, numpy);
    }

    #[test]
    fn boot_pcg64_integers_match_numpy() {
        // default_rng(0).integers(0, 20000, 9, dtype=np.int32)
        let mut g = seed0();
        let got: Vec<u32> = (0..9).map(|_| g.bounded(19_999)).collect();
        assert_eq!(got, [17012, 12739, 10222, 5395, 6156, 819, 1504, 330, 3505]);
        // its state after: has_uint32 1, uinteger 3492969080
        assert!(g.has32);
        assert_eq!(g.buf, 3_492_969_080);

        // default_rng(0).integers(0, 3 * 2**30, 12, dtype=np.uint32): a quarter of the draws rejected
        let mut g = seed0();
        let got: Vec<u32> = (0..12).map(|_| g.bounded((3u32 << 30) - 1)).collect();
        assert_eq!(
            got,
            [
                2740052423, 2051797211, 1646485848, 131984958, 242365461, 53239240, 564575468, 2091914554, 2940191514,
                1622296031, 1954110612, 3126981555
            ]
        );
        // state after: has_uint32 1, uinteger 3133163871, state 0xe87b1463a86d6ad2_fe901546d78f60bb
        assert!(g.has32);
        assert_eq!(g.buf, 3_133_163_871);
        assert_eq!(g.state, (0xe87b_1463_a86d_6ad2_u128 << 64) | 0xfe90_1546_d78f_60bb);
    }

    #[test]
    fn boot_resample_is_bounded_one_by_one() {
        // n = 10^6: ~2 in 10^4 draws take the one-by-one path, most of them redraw; odd rows end on a half
        let x: Vec<f64> = (0..1_000_000).map(|v| v as f64).collect();
        for len in [100_001, 2, 3, 4, 5, 6] {
            let (mut a, mut b) = (seed0(), seed0());
            let mut row = vec![0.0; len];
            for _ in 0..10 {
                resample(&mut a, &x, &mut row, 999_999);
                let one: Vec<f64> = (0..len).map(|_| x[b.bounded(999_999) as usize]).collect();
                assert_eq!(row, one);
                assert_eq!((a.state, a.has32), (b.state, b.has32));
                assert!(!a.has32 || a.buf == b.buf); // a spent half is stale in either
            }
        }
    }

    #[test]
    fn boot_pairwise_sum_small() {
        assert_eq!(pairwise_sum(&[1.0, 2.0]), 3.0);
        assert_eq!(pairwise_sum(&[]), -0.0);
    }
}
