// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @notice What the token manager and the issuer contract need from a stock token.
interface IStockToken is IERC20 {
    function mint(address to, uint256 amount) external;

    /// @notice Burns `amount` from the caller's own balance.
    function burn(uint256 amount) external;

    function paused() external view returns (bool);
}
