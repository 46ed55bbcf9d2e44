/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.ObjectRef;
import dev.slipstream.S3Location;
import dev.slipstream.WriteLog;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.S3AFileStatus;
import org.junit.jupiter.api.Test;

/**
 * What a FileSystem's listings tell its later calls, with no FileSystem: the memory is given a scripted
 * {@link ListingCallbacks} (bucket {@code b}, keys mapped as S3A maps them), which is all it asks of one.
 */
class ListingMemoryTest {
  static final long MINUTE = TimeUnit.MINUTES.toNanos(1);
  static final URI BUCKET = URI.create("s3a://b");

  /** Bucket {@code b} as S3A maps its paths and keys; no listing of its own, no requests counted. */
  static final class ScriptedBucket implements ListingCallbacks {
    @Override
    public String bucket() {
      return "b";
    }

    @Override
    public URI uri() {
      return BUCKET;
    }

    @Override
    public Path qualify(Path path) {
      return path.makeQualified(BUCKET, new Path("/"));
    }

    @Override
    public String pathToKey(Path path) {
      String p = path.toUri().getPath();
      return p.isEmpty() ? "" : p.substring(1);
    }

    @Override
    public Path keyToPath(String key) {
      return new Path("s3a://b/" + key);
    }

    @Override
    public FileStatus[] s3aListStatus(Path path) {
      throw new AssertionError("the memory never lists");
    }

    @Override
    public void countListing(long listRequests) {
      throw new AssertionError("the memory never lists");
    }

    @Override
    public long blockSize() {
      return 32 << 20;
    }

    @Override
    public String owner() {
      return "me";
    }

    @Override
    public BlockLocation[] blockLocations(FileStatus status) {
      return new BlockLocation[0];
    }
  }

  static FileStatus file(String path) {
    return new S3AFileStatus(10, 0, new Path(path), 1, "me", "\"e-" + path + "\"", null);
  }

  static S3Location at(String key) {
    return new S3Location("b", key);
  }

  @Test
  void aWriteForgetsTheListedVersionsUnderItAndTellsTheClient() {
    List<String> told = new ArrayList<>();
    WriteLog writes = new WriteLog();
    ListingMemory memory = new ListingMemory(new ScriptedBucket(), 0, MINUTE, null, null, 1, writes,
        (bucket, prefix) -> {
          writes.wrote(bucket, prefix);
          told.add(bucket + "/" + prefix);
        });
    memory.remember(new FileStatus[] {file("s3a://b/d/a"), file("s3a://b/d/b"), file("s3a://b/e/c")}, memory.generation());
    assertThat(memory.listedRecently(at("d/a"))).isEqualTo(new ObjectRef(at("d/a"), 10, "\"e-s3a://b/d/a\""));

    memory.changed(new Path("/d"), new Path("s3a://other/d"), null);

    assertThat(memory.listedRecently(at("d/a"))).isNull();
    assertThat(memory.listedRecently(at("d/b"))).isNull();
    assertThat(memory.listedRecently(at("e/c"))).as("not under the write").isNotNull();
    assertThat(told).as("another bucket's path is not this FileSystem's").containsExactly("b/d");
  }

  @Test
  void listedVersionsStandInForAHeadOnlyWithATtl() {
    ListingMemory memory = new ListingMemory(new ScriptedBucket(), 2, 0, null, null, 1, new WriteLog(), (bucket, prefix) -> { });
    memory.remember(new FileStatus[] {file("s3a://b/d/a")}, memory.generation());
    assertThat(memory.listedRecently(at("d/a"))).isNull();
  }

  @Test
  void aListedFileIsAnsweredWithItsListedStatusItself() {
    ListingMemory memory = new ListingMemory(new ScriptedBucket(), 0, MINUTE, null, null, 1, new WriteLog(), (bucket, prefix) -> { });
    FileStatus a = file("s3a://b/d/a");
    FileStatus moved = file("s3a://b/d/moved");
    FileStatus noEtag = new S3AFileStatus(10, 0, new Path("s3a://b/d/bare"), 1, "me", null, null);
    memory.remember(new FileStatus[] {a, moved, noEtag, new FileStatus(0, true, 1, 1, 0, new Path("s3a://b/d/sub"))},
        memory.generation());

    assertThat(memory.statusListedRecently(new Path("s3a://b/d/a"))).isSameAs(a);
    assertThat(memory.statusListedRecently(new Path("/d/a"))).as("qualified as S3A qualifies it").isSameAs(a);
    assertThat(memory.statusListedRecently(new Path("s3a://other/d/a"))).as("another bucket").isNull();
    assertThat(memory.statusListedRecently(new Path("s3a://b/d/sub"))).as("a directory").isNull();
    assertThat(memory.statusListedRecently(new Path("s3a://b/d/bare"))).as("listed without an ETag").isNull();
    assertThat(memory.statusListedRecently(new Path("s3a://b/"))).as("the root").isNull();
    // A caller set another path on the status it was handed (ViewFileSystem does): no longer this file's.
    moved.setPath(new Path("viewfs://cluster/d/moved"));
    assertThat(memory.statusListedRecently(new Path("s3a://b/d/moved"))).isNull();

    memory.changed(new Path("/d/a"));
    assertThat(memory.statusListedRecently(new Path("s3a://b/d/a"))).as("a write forgets it").isNull();
  }

  @Test
  void noStatusIsAnsweredWithoutATtlNorFromADeclaredOrder() {
    ListingMemory off = new ListingMemory(new ScriptedBucket(), 2, 0, null, null, 1, new WriteLog(), (bucket, prefix) -> { });
    off.remember(new FileStatus[] {file("s3a://b/d/a")}, off.generation());
    assertThat(off.statusListedRecently(new Path("s3a://b/d/a"))).isNull();

    ListingMemory on = new ListingMemory(new ScriptedBucket(), 2, MINUTE, null, null, 1, new WriteLog(), (bucket, prefix) -> { });
    on.declare(List.of(file("s3a://b/d/a")));
    assertThat(on.statusListedRecently(new Path("s3a://b/d/a"))).as("declared by a caller, not listed").isNull();
  }

  @Test
  void aDeclaredOrderNamesItsFirstFilesOfThisBucketToFetchNow() {
    ListingMemory memory = new ListingMemory(new ScriptedBucket(), 2, MINUTE, null, null, 1, new WriteLog(), (bucket, prefix) -> { });
    FileStatus dir = new FileStatus(0, true, 1, 1, 0, new Path("s3a://b/d"));
    List<FileStatus> files = List.of(dir, file("s3a://b/d/a"), file("s3a://other/d/x"), file("s3a://b/d/b"),
        file("s3a://b/d/c"));

    assertThat(memory.declare(files)).extracting(r -> r.location().key()).containsExactly("d/a", "d/b");
    assertThat(memory.refs(files)).extracting(r -> r.location().key()).containsExactly("d/a", "d/b", "d/c");
  }

  @Test
  void withoutAGlobNoListingIsKept() throws Exception {
    ListingMemory memory = new ListingMemory(new ScriptedBucket(), 2, MINUTE, null, null, 1, new WriteLog(), (bucket, prefix) -> { });
    assertThat(memory.heldOrSiblings(new Path("/d"))).isNull();
    assertThat(memory.heldOrSiblings(new Path("/e"))).isNull();
  }
}
