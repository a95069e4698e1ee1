package builtin

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/sysbench-go/sysbench-go/sbrand"
)

// With --validate every block written by prepare or run carries a check
// pattern, the reference's layout so files are interchangeable on x86-64:
// random bytes, then the CRC-32 (zlib's, IEEE) of those bytes as a 4-byte
// little-endian word, then the block's offset in its file as an 8-byte
// little-endian word. A block is --file-block-size bytes from a
// block-aligned offset, or what is left of the file before its end.
const blockTrailer = 4 + 8

// fillBlocks writes the pattern into each block of a request at pos.
func fillBlocks(buf []byte, pos, blockSize int64, rng *sbrand.Rand) {
	for off := int64(0); off < int64(len(buf)); off += blockSize {
		fillBlock(buf[off:min(off+blockSize, int64(len(buf)))], pos+off, rng)
	}
}

func fillBlock(b []byte, offset int64, rng *sbrand.Rand) {
	if len(b) < blockTrailer {
		return
	}
	n := len(b) - blockTrailer
	var v uint64
	for i := 0; i < n; i++ {
		if i%8 == 0 {
			v = rng.Uint64()
		}
		b[i] = byte(v)
		v >>= 8
	}
	binary.LittleEndian.PutUint32(b[n:], crc32.ChecksumIEEE(b[:n]))
	binary.LittleEndian.PutUint64(b[n+4:], uint64(offset))
}

// checkBlocks verifies every block of a request read at pos.
func checkBlocks(buf []byte, pos, blockSize int64) error {
	for off := int64(0); off < int64(len(buf)); off += blockSize {
		if err := checkBlock(buf[off:min(off+blockSize, int64(len(buf)))], pos+off); err != nil {
			return err
		}
	}
	return nil
}

func checkBlock(b []byte, offset int64) error {
	if len(b) < blockTrailer {
		return nil
	}
	n := len(b) - blockTrailer
	sum, stored := crc32.ChecksumIEEE(b[:n]), binary.LittleEndian.Uint32(b[n:])
	if sum != stored {
		return fmt.Errorf("Checksum mismatch in block with offset: %d\n"+
			"FATAL:     Calculated value: 0x%x    Stored value: 0x%x", offset, sum, stored)
	}
	if got := int64(binary.LittleEndian.Uint64(b[n+4:])); got != offset {
		return fmt.Errorf("Offset mismatch in block:\n"+
			"FATAL:    Actual offset: %d    Stored offset: %d", offset, got)
	}
	return nil
}
