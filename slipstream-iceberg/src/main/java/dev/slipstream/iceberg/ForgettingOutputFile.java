/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import java.io.IOException;
import java.util.function.Function;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;

/**
 * S3FileIO's output file, with two differences: a stream it created tells the Slipstream client, when
 * closed, that the object changed (what S3 answered the client about it no longer stands: DESIGN rule 8),
 * and {@link #toInputFile()} reads the written file back through Slipstream.
 */
final class ForgettingOutputFile implements OutputFile {
  private final OutputFile written;
  private final Runnable changed;
  private final Function<String, InputFile> reader;

  /**
   * @param written S3FileIO's output file
   * @param changed tells the Slipstream client that this object changed
   * @param reader opens a location for reading through Slipstream
   */
  ForgettingOutputFile(OutputFile written, Runnable changed, Function<String, InputFile> reader) {
    this.written = written;
    this.changed = changed;
    this.reader = reader;
  }

  @Override
  public PositionOutputStream create() {
    return new Forgetting(written.create());
  }

  @Override
  public PositionOutputStream createOrOverwrite() {
    return new Forgetting(written.createOrOverwrite());
  }

  @Override
  public String location() {
    return written.location();
  }

  @Override
  public InputFile toInputFile() {
    return reader.apply(written.location());
  }

  @Override
  public String toString() {
    return written.toString();
  }

  /** Passes every call to S3FileIO's stream; after close, the object is new to Slipstream. */
  private final class Forgetting extends PositionOutputStream {
    private final PositionOutputStream out;

    Forgetting(PositionOutputStream out) {
      this.out = out;
    }

    @Override
    public long getPos() throws IOException {
      return out.getPos();
    }

    @Override
    public long storedLength() throws IOException {
      return out.storedLength();
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }

    @Override
    public void close() throws IOException {
      try {
        out.close();
      } finally {
        changed.run();
      }
    }
  }
}
