/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import dev.slipstream.SlipstreamInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.ParquetFileRange;
import org.apache.parquet.io.SeekableInputStream;

/**
 * Parquet's {@link InputFile} over a Slipstream stream: how a program without Hadoop reads Parquet
 * through the plain API. Parquet reads its footer with seeks and reads, and the column chunks of a row
 * group as one vectored read, which goes to {@link SlipstreamInputStream#readFullyAsync}: every chunk
 * started at once.
 */
final class CoreInputFile implements InputFile {
  private final CoreSession session;
  private final FileRef file;

  CoreInputFile(CoreSession session, FileRef file) {
    this.session = session;
    this.file = file;
  }

  @Override
  public long getLength() {
    return file.length();
  }

  @Override
  public SeekableInputStream newStream() throws IOException {
    SlipstreamInputStream in = session.openStream(file);
    return new DelegatingSeekableInputStream(in) {
      @Override
      public long getPos() {
        return in.getPos();
      }

      @Override
      public void seek(long newPos) throws IOException {
        in.seek(newPos);
      }

      @Override
      public boolean readVectoredAvailable(ByteBufferAllocator allocator) {
        return true;
      }

      @Override
      public void readVectored(List<ParquetFileRange> ranges, ByteBufferAllocator allocator) {
        for (ParquetFileRange r : ranges) {
          int len = r.getLength();
          ByteBuffer buffer = allocator.allocate(len);
          boolean heap = buffer.hasArray();
          byte[] into = heap ? buffer.array() : new byte[len];
          int off = heap ? buffer.arrayOffset() + buffer.position() : 0;
          r.setDataReadFuture(in.readFullyAsync(r.getOffset(), into, off, len).thenApply(v -> {
            if (heap) {
              buffer.position(buffer.position() + len);
            } else {
              buffer.put(into);
            }
            buffer.flip();
            return buffer;
          }));
        }
      }
    };
  }

  @Override
  public String toString() {
    return "s3://.../" + file.key();
  }
}
