/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import dev.slipstream.SlipstreamInputStream;
import java.io.IOException;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/**
 * Parquet's {@link InputFile} over a Slipstream stream: how a program without Hadoop reads Parquet
 * through the plain API. Parquet seeks and reads whole column chunks; it asks for no vectored reads
 * here (that is a Hadoop stream capability), so the chunks are read one after another.
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
    };
  }

  @Override
  public String toString() {
    return "s3://.../" + file.key();
  }
}
