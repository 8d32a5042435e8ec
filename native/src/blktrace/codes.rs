//! blktrace action codes and categories (include/uapi/linux/blktrace_api.h), as readers/blkcodes.py has them.

pub const MAGIC: u32 = 0x6561_7400;
pub const TC_PC: u32 = 1 << 9;
pub const TC_NOTIFY: u32 = 1 << 10;
pub const CGROUP_BIT: u64 = 1 << 8;
pub const NOTIFY_PROCESS: u64 = 0;
pub const NOTIFY_TIMESTAMP: u64 = 1;
pub const NOTIFY_MESSAGE: u64 = 2;
/// Index of "m" (message records) after the 256 action codes.
pub const MSG: usize = 256;

pub const A: usize = 15;
pub const X: usize = 13;
pub const P: usize = 9;
pub const U: usize = 10;
pub const UT: usize = 11;

/// Letters blkparse prints per action code; "?N" for codes it does not know, then "m".
pub fn action_names() -> Vec<String> {
    const KNOWN: [&str; 20] = [
        "", "Q", "M", "F", "G", "S", "R", "D", "C", "P", "U", "UT", "I", "X", "B", "A", "ABORT", "DRV", "ZP", "ZU",
    ];
    let mut v: Vec<String> =
        (0..256).map(|i| if (1..20).contains(&i) { KNOWN[i].to_owned() } else { format!("?{i}") }).collect();
    v.push("m".to_owned());
    v
}

/// blkparse's fill_rwbs for each key: bits 0 F(lush), 1 D(iscard), 2 W(rite), 3 bytes > 0, 4 FUA, 5 A(head),
/// 6 S(ync), 7 M(eta).
pub fn rwbs_names() -> Vec<String> {
    (0..256u32)
        .map(|k| {
            let b = |i: u32| (k >> i) & 1 == 1;
            let mut s = String::new();
            if b(0) {
                s.push('F');
            }
            s.push(if b(1) {
                'D'
            } else if b(2) {
                'W'
            } else if b(3) {
                'R'
            } else {
                'N'
            });
            for (i, c) in [(4, 'F'), (5, 'A'), (6, 'S'), (7, 'M')] {
                if b(i) {
                    s.push(c);
                }
            }
            s
        })
        .collect()
}

/// Category bits (action >> 16) -> rwbs key without the bytes bit, for all 2^16 combinations.
pub fn category_keys() -> Vec<u8> {
    // (category bit, key bit): FLUSH, DISCARD, WRITE, FUA, AHEAD, SYNC, META
    const BITS: [(u32, u32); 7] = [(1 << 2, 0), (1 << 13, 1), (1 << 1, 2), (1 << 15, 4), (1 << 11, 5), (1 << 3, 6), (1 << 12, 7)];
    (0..1u32 << 16).map(|c| BITS.iter().filter(|(bit, _)| c & bit != 0).fold(0u8, |k, (_, kb)| k | (1 << kb))).collect()
}

/// Actions without a sector (blkparse prints none): P, U, UT and messages.
pub fn no_sector(code: usize) -> bool {
    matches!(code, P | U | UT | MSG)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rwbs(cat: u32, bytes: bool) -> String {
        rwbs_names()[(category_keys()[cat as usize] | ((bytes as u8) << 3)) as usize].clone()
    }

    #[test]
    fn rwbs_letters_as_blkparse_prints_them() {
        const READ: u32 = 1;
        const WRITE: u32 = 2;
        const FLUSH: u32 = 4;
        const SYNC: u32 = 8;
        const AHEAD: u32 = 1 << 11;
        const META: u32 = 1 << 12;
        const DISCARD: u32 = 1 << 13;
        const FUA: u32 = 1 << 15;
        assert_eq!(rwbs(READ, true), "R");
        assert_eq!(rwbs(READ, false), "N"); // a read without bytes (blkparse: N)
        assert_eq!(rwbs(WRITE | SYNC, true), "WS");
        assert_eq!(rwbs(FLUSH | WRITE | FUA | SYNC, false), "FWFS");
        assert_eq!(rwbs(DISCARD | WRITE | SYNC, true), "DS");
        assert_eq!(rwbs(READ | AHEAD | META, true), "RAM");
        assert_eq!(action_names()[11], "UT");
        assert_eq!(action_names()[200], "?200");
        assert_eq!(action_names()[MSG], "m");
    }
}
