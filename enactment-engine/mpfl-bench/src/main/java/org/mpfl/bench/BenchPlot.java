package org.mpfl.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleUnaryOperator;
import javax.imageio.ImageIO;

/**
 * The project's one plotter: PNG charts of log-log panels (java.awt, headless; no plotting library
 * needed), lines with dots, dashed for reference data (the peers'). Used by every benchmark command:
 * {@code bench p2p} ({@link BenchCommand#plot}: PingPong and Ping*Pong against message size),
 * {@code bench collectives} (a panel per operation), the engine's {@code bench mediator},
 * {@code bench moldyn}, {@code bench startup} and {@code bench kernels} (whose x axis names categories:
 * {@link Panel#ofCategories}).
 * {@code java -cp … org.mpfl.bench.BenchPlot results.json plot.png} redraws a saved
 * {@code bench p2p} run ({@code bench collectives --from FILE --plot PNG} does so for the collectives).
 */
public final class BenchPlot {
    private static final int W = 1400;
    private static final int H = 620;
    private static final Color[] COLORS = {new Color(0xD62728), new Color(0x1F77B4), new Color(0x2CA02C),
        Color.BLACK, new Color(0x9467BD), new Color(0xFF7F0E), new Color(0x8C564B), new Color(0xE377C2)};

    private BenchPlot() {
    }

    /** A named series of (x, y) points. */
    private record Series(String name, List<double[]> points, boolean dashed) {
    }

    /** A named line of (x, y) points for {@link #writePanels}; dashed for reference data (e.g. the peers'). */
    public record Line(String name, List<double[]> points, boolean dashed) {
    }

    /**
     * One panel of {@link #writePanels}: title, x-axis label and lines; log-log, unless {@code categories}
     * name the x axis's places (then the point at x = i stands at the i-th of them, counted from 0, and
     * only the y axis is logarithmic; a horizontal line over a category spans x = i - 0.45 to i + 0.45).
     */
    public record Panel(String title, String xLabel, List<Line> lines, List<String> categories) {
        /** A log-log panel. */
        public Panel(String title, String xLabel, List<Line> lines) {
            this(title, xLabel, lines, List.of());
        }

        /** A panel with the x axis's places named, evenly spaced, and a log y axis. */
        public static Panel ofCategories(String title, String xLabel, List<String> categories, List<Line> lines) {
            return new Panel(title, xLabel, lines, List.copyOf(categories));
        }
    }

    /**
     * Draws panels side by side, log-log like the point-to-point plot, the x axis spanning the decades
     * of the data — for the other benchmarks' plots (the engine's {@code bench mediator} and
     * {@code bench moldyn}), so that every plot of the project looks alike.
     */
    public static void writePanels(List<Panel> panels, Path png) throws IOException {
        writePanels(panels, Math.max(1, panels.size()), png);
    }

    /** Draws panels in rows of {@code columns} (e.g. 2 × 2 for the collectives' four operations). */
    public static void writePanels(List<Panel> panels, int columns, Path png) throws IOException {
        System.setProperty("java.awt.headless", "true");
        int cols = Math.max(1, Math.min(columns, Math.max(1, panels.size())));
        int rowCount = Math.max(1, (panels.size() + cols - 1) / cols);
        int width = cols * (W / 2);
        int height = rowCount * H;
        BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, width, height);
        for (int i = 0; i < panels.size(); i++) {
            Panel pn = panels.get(i);
            List<Series> series = new ArrayList<>();
            double minX = Double.MAX_VALUE;
            double maxX = 0;
            double minY = Double.MAX_VALUE;
            double maxY = 0;
            for (Line l : pn.lines()) {
                series.add(new Series(l.name(), l.points(), l.dashed()));
                for (double[] pt : l.points()) {
                    if (pt[0] > 0) {
                        minX = Math.min(minX, pt[0]);
                        maxX = Math.max(maxX, pt[0]);
                    }
                    if (pt[1] > 0 && !Double.isNaN(pt[1])) {
                        minY = Math.min(minY, pt[1]);
                        maxY = Math.max(maxY, pt[1]);
                    }
                }
            }
            if (maxX == 0) {
                minX = 1;
                maxX = 10;
            }
            if (maxY == 0) {
                minY = 1;
                maxY = 10;
            }
            double lo = Math.pow(10, Math.floor(Math.log10(minX)));
            double hi = Math.pow(10, Math.max(Math.ceil(Math.log10(maxX)), Math.log10(lo) + 1));
            panel(g, (i % cols) * (W / 2) + 60, (i / cols) * H + 40, W / 2 - 90, H - 110, pn.title(), series, lo, hi,
                    pn.xLabel(), pn.categories(), minY, maxY);
        }
        g.dispose();
        Files.createDirectories(png.toAbsolutePath().getParent());
        ImageIO.write(img, "png", png.toFile());
    }

    private static void panel(Graphics2D g, int x0, int y0, int w, int h, String title, List<Series> series,
                              double minX, double maxX, String xLabel, List<String> categories, double leastMinY,
                              double leastMaxY) {
        // the y axis spans at least [leastMinY, leastMaxY] and every point
        double minY = leastMinY;
        double maxY = leastMaxY;
        for (Series s : series) {
            for (double[] p : s.points()) {
                if (p[1] > 0 && !Double.isNaN(p[1])) {
                    minY = Math.min(minY, p[1]);
                    maxY = Math.max(maxY, p[1]);
                }
            }
        }
        double lx0 = Math.log10(minX);
        double lx1 = Math.log10(maxX);
        boolean categorical = !categories.isEmpty();
        DoubleUnaryOperator xAt = categorical ? x -> x0 + (x + 0.5) / categories.size() * w
                : x -> x0 + (Math.log10(x) - lx0) / (lx1 - lx0) * w;
        double ly0 = Math.floor(Math.log10(minY));
        double ly1 = Math.max(Math.ceil(Math.log10(maxY)), ly0 + 1); // at least one decade (no empty axis)
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
        g.setColor(Color.BLACK);
        g.drawString(title, x0, y0 - 12);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        g.setColor(new Color(0xDDDDDD));
        for (double e = lx0; e <= lx1 && !categorical; e++) {
            int x = x0 + (int) ((e - lx0) / (lx1 - lx0) * w);
            g.drawLine(x, y0, x, y0 + h);
        }
        for (double e = ly0; e <= ly1; e++) {
            int y = y0 + h - (int) ((e - ly0) / (ly1 - ly0) * h);
            g.drawLine(x0, y, x0 + w, y);
        }
        g.setColor(Color.BLACK);
        g.drawRect(x0, y0, w, h);
        for (double e = lx0; e <= lx1 && !categorical; e++) {
            int x = x0 + (int) ((e - lx0) / (lx1 - lx0) * w);
            g.drawString("1e" + (int) e, x - 10, y0 + h + 15);
        }
        for (int i = 0; i < categories.size(); i++) {
            String name = categories.get(i);
            g.drawString(name, (int) xAt.applyAsDouble(i) - g.getFontMetrics().stringWidth(name) / 2, y0 + h + 15);
        }
        for (double e = ly0; e <= ly1; e++) {
            int y = y0 + h - (int) ((e - ly0) / (ly1 - ly0) * h);
            g.drawString("1e" + (int) e, x0 - 35, y + 4);
        }
        g.drawString(xLabel, x0 + w / 2 - 50, y0 + h + 32);
        int legendY = y0 + 18;
        for (int i = 0; i < series.size(); i++) {
            Series s = series.get(i);
            Color c = COLORS[i % COLORS.length];
            g.setColor(c);
            g.setStroke(s.dashed() ? new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 1f,
                    new float[] {6f, 4f}, 0f) : new BasicStroke(2.2f));
            int[] prev = null;
            for (double[] p : s.points()) {
                if (!(p[1] > 0)) {
                    prev = null;
                    continue;
                }
                int x = (int) xAt.applyAsDouble(p[0]);
                int y = y0 + h - (int) ((Math.log10(p[1]) - ly0) / (ly1 - ly0) * h);
                g.fillOval(x - 3, y - 3, 6, 6);
                if (prev != null) {
                    g.drawLine(prev[0], prev[1], x, y);
                }
                prev = new int[] {x, y};
            }
            g.drawLine(x0 + 12, legendY - 4, x0 + 40, legendY - 4);
            g.setStroke(new BasicStroke(1f));
            g.setColor(Color.BLACK);
            g.drawString(s.name(), x0 + 46, legendY);
            legendY += 16;
        }
        g.setStroke(new BasicStroke(1f));
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        g.drawString(String.format(Locale.ROOT, "%s; %d series", categorical ? "log y" : "log-log", series.size()), x0 + w - 90,
                y0 + h - 6);
    }
}
