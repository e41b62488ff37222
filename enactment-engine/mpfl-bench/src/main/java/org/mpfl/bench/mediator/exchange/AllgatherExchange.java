package org.mpfl.bench.mediator.exchange;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.mpfl.bench.mediator.MediatedWorkflow;

/**
 * {@code exchange.mpfl.xml} enacted by the mediator: round 0 runs {@link ExchangeInit} on every rank
 * (each answers its block), then one round per iteration: the engine concatenates the blocks in rank
 * order (what the document's {@code allgather} gives every rank), sends that to every rank, and each
 * runs {@link ExchangeUpdate} and answers its new block and checksum. Same activities, same inputs,
 * hence the same results and the same data per rank as the document.
 */
public final class AllgatherExchange implements MediatedWorkflow {
    /** Class-path resource of the MPFL document with the same computation. */
    public static final String DOCUMENT = "org/mpfl/bench/mediator/exchange/exchange.mpfl.xml";

    private final int size;
    private final int iterations;
    private final int doubles;
    private final double[][] blocks;
    private final double[] checksums;
    private double[] all;

    public AllgatherExchange(int size, int iterations, int doubles) {
        this.size = size;
        this.iterations = iterations;
        this.doubles = doubles;
        this.blocks = new double[size][];
        this.checksums = new double[size];
    }

    /** The text of {@link #DOCUMENT}. */
    public static String document() throws IOException {
        try (InputStream in = AllgatherExchange.class.getClassLoader().getResourceAsStream(DOCUMENT)) {
            if (in == null) {
                throw new IOException("resource " + DOCUMENT + " missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public int rounds() {
        return iterations + 1;
    }

    @Override
    public String activity(int round) {
        return (round == 0 ? ExchangeInit.class : ExchangeUpdate.class).getName();
    }

    @Override
    public Map<String, Object> inputs(int round, int rank) {
        return round == 0 ? Map.of("n", doubles) : Map.of("all", all);
    }

    @Override
    public void accept(int round, int rank, Map<String, Object> outputs) {
        Object block = outputs.get("block");
        if (!(block instanceof double[] b) || b.length != doubles) {
            throw new IllegalStateException("round " + round + ": rank " + rank + " answered no block of " + doubles + " doubles");
        }
        blocks[rank] = b;
        if (round > 0) {
            checksums[rank] = ((Number) outputs.get("checksum")).doubleValue();
        }
    }

    @Override
    public void endRound(int round) {
        // the relay: everybody's block, in rank order, for everybody's next step
        double[] next = new double[size * doubles];
        for (int r = 0; r < size; r++) {
            System.arraycopy(blocks[r], 0, next, r * doubles, doubles);
        }
        all = next;
    }

    /** Each rank's checksum after the last round (the document's {@code checksum} output). */
    public double[] checksums() {
        return checksums.clone();
    }
}
