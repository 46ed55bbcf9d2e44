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
 * closed, that the object changed (what S3 answered the client about it no longer stands:
 * docs/architecture.md, rule 8), and {@link #toInputFile()} reads the written file back through Slipstream. A stream of a deserialized
 * FileIO copy holds a lease on the shared clients until it is closed ({@link SharedClients}).
 */
final class ForgettingOutputFile implements OutputFile {
  private final OutputFile written;
  private final Runnable changed;
  private final Function<String, InputFile> reader;
  /** The FileIO's lease on shared clients, or null if the FileIO owns its clients. */
  private final SharedClients.Lease lease;

  /**
   * @param written S3FileIO's output file
   * @param changed tells the Slipstream client that this object changed
   * @param reader opens a location for reading through Slipstream
   * @param lease the FileIO's lease on shared clients, or null
   */
  ForgettingOutputFile(OutputFile written, Runnable changed, Function<String, InputFile> reader,
      SharedClients.Lease lease) {
    this.written = written;
    this.changed = changed;
    this.reader = reader;
    this.lease = lease;
  }

  @Override
  public PositionOutputStream create() {
    return held(written::create);
  }

  @Override
  public PositionOutputStream createOrOverwrite() {
    return held(written::createOrOverwrite);
  }

  private PositionOutputStream held(java.util.function.Supplier<PositionOutputStream> create) {
    SharedClients.Lease held = SharedClients.another(lease);
    PositionOutputStream out = null;
    try {
      out = create.get();
    } finally {
      if (out == null) {
        SharedClients.end(held);
      }
    }
    return new Forgetting(out, held);
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
    private final SharedClients.Lease held;

    Forgetting(PositionOutputStream out, SharedClients.Lease held) {
      this.out = out;
      this.held = held;
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
        try {
          changed.run();
        } finally {
          SharedClients.end(held);
        }
      }
    }
  }
}
