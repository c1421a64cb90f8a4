// Address-geocoding records as the ETL writes them (boundaries/address/*.json).

export interface RangeSide {
  from: number;
  to: number;
  zip: string | null;
  /** TIGER parity flag: O odd, E even, B both. */
  parity: 'O' | 'E' | 'B' | null;
}

/** One TIGER/Line ADDRFEAT edge: ranges on each side of a polyline digitised from→to. */
export interface AddrEdge {
  tlid: string;
  fullname: string;
  street: string;
  coords: [number, number][];
  left: RangeSide | null;
  right: RangeSide | null;
}

/** One OpenAddresses point; `lo`..`hi` expands labels such as "1016-18". */
export interface AddrPoint {
  label: string;
  lo: number;
  hi: number;
  fullname: string;
  street: string;
  unit: string | null;
  zip: string | null;
  lon: number;
  lat: number;
}
