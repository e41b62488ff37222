package org.mpfl.ir.plan;

/** A library: its path as written in the document and its entry in every service archive ({@code lib/NAME.jar} for a jar, {@code kernels/NAME} for a Python file, package, zip or directory). */
public record PlanLibrary(String path, String archiveEntry) {
}
