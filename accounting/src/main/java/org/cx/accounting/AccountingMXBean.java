package org.cx.accounting;

/** The accounting service as JMX shows it ({@code org.cx:type=Accounting}). */
public interface AccountingMXBean {
    /** Batches of usage recorded since the service started. */
    long getBatchesRecorded();

    /** Batches sent again after they were recorded (their acknowledgement was lost), recognised and not counted. */
    long getBatchesRepeated();

    /** Usage rows received in recorded batches. */
    long getRowsReceived();

    /** The version of the prices in force (0: none loaded, everything free). */
    int getPricesVersion();

    /** Usage rows in the database (aggregated). */
    long getRowsStored();
}
