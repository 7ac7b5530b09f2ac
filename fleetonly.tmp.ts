import { measureFleetScale } from './bench/fleet-scale.ts';
const rows = await measureFleetScale({ memoryMb: 512 });
console.log(JSON.stringify(rows, null, 1));
