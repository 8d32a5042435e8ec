//! Where the fields of a record are (read without bounds checks: the walk only hands out records that
//! lie wholly inside the window), for each (byte order, version) at compile time: the decoders are
//! instantiated four times instead of testing the order and version at every field of every record.

/// Record fields; offsets are valid because the walk only hands out complete records.
pub trait Layout: Copy {
    const BIG: bool;
    const V8: bool;
    #[inline(always)]
    fn hdr(self) -> usize {
        if Self::V8 { 64 } else { 48 }
    }
    #[inline(always)]
    fn u16(self, b: &[u8], at: usize) -> u16 {
        assert!(at + 2 <= b.len() || cfg!(not(debug_assertions)));
        // SAFETY: callers read header fields of records the walk found complete inside `b`
        let x: [u8; 2] = unsafe { (b.as_ptr().add(at) as *const [u8; 2]).read_unaligned() };
        if Self::BIG { u16::from_be_bytes(x) } else { u16::from_le_bytes(x) }
    }
    #[inline(always)]
    fn u32(self, b: &[u8], at: usize) -> u32 {
        assert!(at + 4 <= b.len() || cfg!(not(debug_assertions)));
        // SAFETY: callers read header fields of records the walk found complete inside `b`
        let x: [u8; 4] = unsafe { (b.as_ptr().add(at) as *const [u8; 4]).read_unaligned() };
        if Self::BIG { u32::from_be_bytes(x) } else { u32::from_le_bytes(x) }
    }
    #[inline(always)]
    fn u64(self, b: &[u8], at: usize) -> u64 {
        assert!(at + 8 <= b.len() || cfg!(not(debug_assertions)));
        // SAFETY: callers read header fields of records the walk found complete inside `b`
        let x: [u8; 8] = unsafe { (b.as_ptr().add(at) as *const [u8; 8]).read_unaligned() };
        if Self::BIG { u64::from_be_bytes(x) } else { u64::from_le_bytes(x) }
    }
    #[inline(always)]
    fn dev_at(self) -> usize {
        if Self::V8 { 40 } else { 36 }
    }
    #[inline(always)]
    fn cpu_at(self) -> usize {
        if Self::V8 { 44 } else { 40 }
    }
    #[inline(always)]
    fn pid_at(self) -> usize {
        if Self::V8 { 28 } else { 32 }
    }
    #[inline(always)]
    fn err_at(self) -> usize {
        if Self::V8 { 48 } else { 44 }
    }
    #[inline(always)]
    fn action(self, b: &[u8], o: usize) -> u64 {
        if Self::V8 { self.u64(b, o + 32) } else { self.u32(b, o + 28) as u64 }
    }
    /// Category bits (action >> 16) of the record at `o`.
    #[inline(always)]
    fn cat(self, b: &[u8], o: usize) -> u32 {
        ((self.action(b, o) >> 16) & 0xFFFF) as u32
    }
    #[inline(always)]
    fn pdu_len(self, b: &[u8], o: usize) -> u16 {
        self.u16(b, o + if Self::V8 { 50 } else { 46 })
    }
    /// The header fields of the record at `o`.
    #[inline(always)]
    fn rec(self, b: &[u8], o: usize) -> Rec {
        Rec {
            seq: self.u32(b, o + 4),
            time: self.u64(b, o + 8),
            action: self.action(b, o),
            pid: self.u32(b, o + self.pid_at()),
            device: self.u32(b, o + self.dev_at()),
            cpu: self.u32(b, o + self.cpu_at()),
            pdu_len: self.pdu_len(b, o),
        }
    }
}

#[derive(Clone, Copy)]
pub struct Fixed<const BIG: bool, const V8: bool>;

impl<const B: bool, const V: bool> Layout for Fixed<B, V> {
    const BIG: bool = B;
    const V8: bool = V;
}

pub struct Rec {
    pub seq: u32,
    pub time: u64,
    pub action: u64,
    pub pid: u32,
    pub device: u32,
    pub cpu: u32,
    pub pdu_len: u16,
}

/// Run `$body` with `$l` bound to the Layout of format `$fmt` (big-endian?, version 8?).
macro_rules! with_layout {
    ($fmt:expr, $l:ident => $body:expr) => {
        match ($fmt.big, $fmt.version == 8) {
            (false, false) => { let $l = $crate::blktrace::layout::Fixed::<false, false>; $body }
            (false, true) => { let $l = $crate::blktrace::layout::Fixed::<false, true>; $body }
            (true, false) => { let $l = $crate::blktrace::layout::Fixed::<true, false>; $body }
            (true, true) => { let $l = $crate::blktrace::layout::Fixed::<true, true>; $body }
        }
    };
}
pub(crate) use with_layout;
