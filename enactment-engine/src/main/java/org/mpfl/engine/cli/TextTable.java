package org.mpfl.engine.cli;

import java.io.PrintStream;
import java.util.List;

/** A plain-text table of the commands' output ({@code run --sweep}, {@code runs}): columns as wide as their widest cell, two spaces apart. */
final class TextTable {
    private TextTable() {
    }

    /** Prints {@code rows} (the first is the header), each line without trailing spaces. */
    static void print(List<List<String>> rows, PrintStream out) {
        int[] widths = new int[rows.get(0).size()];
        for (List<String> r : rows) {
            for (int i = 0; i < r.size(); i++) {
                widths[i] = Math.max(widths[i], r.get(i).length());
            }
        }
        for (List<String> r : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < r.size(); i++) {
                line.append(i == 0 ? "" : "  ").append(String.format("%-" + widths[i] + "s", r.get(i)));
            }
            out.println(line.toString().stripTrailing());
        }
    }
}
