/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.memcached;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The ring places keys as libmemcached's weighted ketama does, and a change of servers moves only its share. */
class KetamaRingTest {
  @Test
  void placesLibmemcachedsCompatibilityVectorsAsLibmemcachedDoes() throws IOException {
    int[] weights = {600, 300, 200, 350, 1000, 800, 950, 100};
    List<KetamaRing.Server> servers = new ArrayList<>();
    for (int i = 0; i < weights.length; i++) {
      servers.add(new KetamaRing.Server("10.0.1." + (i + 1), 11211, weights[i]));
    }
    KetamaRing ring = new KetamaRing(servers);
    int checked = 0;
    try (BufferedReader in = new BufferedReader(new InputStreamReader(
        KetamaRingTest.class.getResourceAsStream("/ketama-libmemcached.tsv"), StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.startsWith("#")) {
          continue;
        }
        String[] f = line.split("\t");
        byte[] key = f[0].getBytes(StandardCharsets.US_ASCII);
        long hash = KetamaRing.hash(key);
        assertThat(hash).as("hash of %s", f[0]).isEqualTo(Long.parseLong(f[1]));
        assertThat(ring.point(ring.pointOf(hash))).as("point of %s", f[0]).isEqualTo(Long.parseLong(f[2]));
        assertThat(servers.get(ring.serverOf(key)).host()).as("server of %s", f[0]).isEqualTo(f[3]);
        checked++;
      }
    }
    assertThat(checked).isEqualTo(99);
  }

  @Test
  void evenServersGet160PointsEachAndAPortOtherThan11211IsInThePointNames() {
    KetamaRing ring = new KetamaRing(List.of(new KetamaRing.Server("127.0.0.1", 40001, 1),
        new KetamaRing.Server("127.0.0.1", 40002, 1), new KetamaRing.Server("127.0.0.1", 40003, 1)));
    assertThat(ring.size()).isEqualTo(3 * KetamaRing.POINTS_PER_SERVER);
    assertThat(new KetamaRing.Server("h", 11211, 1).pointName(7)).isEqualTo("h-7");
    assertThat(new KetamaRing.Server("h", 40001, 1).pointName(7)).isEqualTo("h:40001-7");
  }

  @Test
  void addingOrLosingAServerMovesOnlyItsShareOfKeys() {
    List<KetamaRing.Server> three = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      three.add(new KetamaRing.Server("10.0.0." + i, 11211, 1));
    }
    List<KetamaRing.Server> four = new ArrayList<>(three);
    four.add(new KetamaRing.Server("10.0.0.3", 11211, 1));
    KetamaRing before = new KetamaRing(three);
    KetamaRing after = new KetamaRing(four);
    int keys = 20_000;
    int moved = 0;
    int[] perServer = new int[3];
    for (int k = 0; k < keys; k++) {
      byte[] key = ("slipstream:block-" + k).getBytes(StandardCharsets.US_ASCII);
      int was = before.serverOf(key);
      int is = after.serverOf(key);
      perServer[was]++;
      if (was != is) {
        moved++;
        assertThat(is).as("a key that moves goes to the new server").isEqualTo(3);
      }
    }
    // About a quarter of the keys move, all to the new server; none moves between the old ones.
    assertThat(moved).isBetween(keys / 4 - keys / 10, keys / 4 + keys / 10);
    for (int n : perServer) {
      assertThat(n).as("an even share for each of three").isBetween(keys / 3 - keys / 10, keys / 3 + keys / 10);
    }
  }
}
